//go:build cgo

package vulkan

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// openStaged opens a device whose data buffers are not host-mapped, as on a
// discrete GPU: every Write and Read goes through staging buffers.
func openStaged(t *testing.T) *Device {
	stagedDataForTests = true
	defer func() { stagedDataForTests = false }()
	d := openDevice(t)
	require.False(t, d.plan.mappedData)
	return d
}

func TestStagedWriteRead(t *testing.T) {
	d := openStaged(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 2))
	for _, n := range []int{1, 5, 64, 3000, bigUpload + 7} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		b := upload(t, d, data)
		require.Nil(t, b.(*Buffer).raw.mapped)
		assert.Equal(t, data, download(t, d, b, n), "n=%d", n)
		if n > 8 {
			patch := []byte{9, 8, 7}
			require.NoError(t, d.Write(b, 5, patch)) // unaligned: read-modify-write of words
			copy(data[5:], patch)
			part := make([]byte, n-3)
			require.NoError(t, d.Read(b, 3, part))
			assert.Equal(t, data[3:], part, "n=%d", n)
		}
		d.Free(b)
	}
}

func TestStagedKernelsAndStatus(t *testing.T) {
	d := openStaged(t)
	n := 300
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i)
	}
	bx := upload(t, d, f32Bytes(x))
	by := alloc(t, d, int64(4*n))
	require.NoError(t, d.Elementwise(unaryKernel(bx, by, n, device.OpNeg)))
	// bx is pending: this write is staged and ordered after the kernel.
	require.NoError(t, d.Write(bx, 0, f32Bytes(make([]float32, n))))
	got := bytesF32(download(t, d, by, 4*n))
	for i := range got {
		require.Equal(t, -x[i], got[i])
	}

	src := upload(t, d, f32Bytes([]float32{1, 2}))
	idx := upload(t, d, i32Bytes([]int32{1, -1}))
	out := alloc(t, d, 8)
	k := &device.GatherKernel{
		Src:   device.Contiguous(src, device.Float32, 0, []int{2}),
		Index: device.Contiguous(idx, device.Int32, 0, []int{2}),
		Out:   device.Contiguous(out, device.Float32, 0, []int{2}),
	}
	require.NoError(t, d.Gather(k))
	err := d.Sync()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "index -1 out of range")
	require.NoError(t, d.Sync())
}
