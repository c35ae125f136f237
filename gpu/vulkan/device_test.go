//go:build cgo

package vulkan

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

func TestAdapters(t *testing.T) {
	infos, err := Backend{}.Adapters()
	if err != nil {
		if gputest.Required("vulkan") {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	require.NotEmpty(t, infos)
	for i, in := range infos {
		t.Logf("%v limits %+v features %+v", in, in.Limits, in.Features)
		assert.Equal(t, i, in.Index)
		assert.Equal(t, "vulkan", in.Backend)
		assert.NotEmpty(t, in.Name)
		assert.Positive(t, in.MemoryBytes)
		assert.Positive(t, in.Limits.MaxAllocBytes)
		assert.Positive(t, in.Limits.MaxBindingBytes)
		assert.Positive(t, in.Limits.MaxBuffersPerKernel)
		assert.Positive(t, in.Limits.MaxWorkgroups[0])
		if i > 0 {
			assert.LessOrEqual(t, infos[i-1].Kind.Rank(), in.Kind.Rank(), "adapters sorted by kind")
		}
	}
}

func TestOpenBadIndex(t *testing.T) {
	if _, err := (Backend{}).Adapters(); err != nil {
		t.Skip(err)
	}
	_, err := Backend{}.Open(99)
	require.ErrorIs(t, err, device.ErrUnavailable)
}

func TestWriteRead(t *testing.T) {
	d := openDevice(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for _, n := range []int{1, 3, 4, 17, 1000, 300_000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		b := upload(t, d, data)
		assert.GreaterOrEqual(t, b.Bytes(), int64(n))
		assert.Equal(t, data, download(t, d, b, n), "n=%d", n)
		// Unaligned partial rewrite.
		if n > 8 {
			patch := []byte{1, 2, 3, 4, 5}
			require.NoError(t, d.Write(b, 3, patch))
			copy(data[3:], patch)
			assert.Equal(t, data, download(t, d, b, n), "n=%d", n)
			part := make([]byte, 5)
			require.NoError(t, d.Read(b, 1, part))
			assert.Equal(t, data[1:6], part)
		}
		d.Free(b)
	}
}

func TestOutOfRangePanics(t *testing.T) {
	d := openDevice(t)
	b, err := d.Alloc(16)
	require.NoError(t, err)
	assert.Panics(t, func() { _ = d.Write(b, 10, make([]byte, 10)) })
	assert.Panics(t, func() { _ = d.Read(b, -1, make([]byte, 1)) })
	d.Free(b)
	d.Free(b) // a second Free is a no-op
	assert.Panics(t, func() { _ = d.Write(b, 0, []byte{1}) })
}

func TestElementwiseAdd(t *testing.T) {
	d := openDevice(t)
	n := 1000
	x := make([]float32, n)
	y := make([]float32, n)
	for i := range x {
		x[i] = float32(i)
		y[i] = float32(2 * i)
	}
	bx, by := upload(t, d, f32Bytes(x)), upload(t, d, f32Bytes(y))
	bo, err := d.Alloc(int64(4 * n))
	require.NoError(t, err)
	var pb device.Builder
	pb.Output(pb.Binary(device.OpAdd, pb.Input(0, device.Float32), pb.Input(1, device.Float32)))
	shape := []int{n}
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{
		Shape:   shape,
		Inputs:  []device.View{device.Contiguous(bx, device.Float32, 0, shape), device.Contiguous(by, device.Float32, 0, shape)},
		Program: pb.P,
		Outputs: []device.View{device.Contiguous(bo, device.Float32, 0, shape)},
	}))
	got := bytesF32(download(t, d, bo, 4*n))
	for i := range got {
		require.Equal(t, x[i]+y[i], got[i], "i=%d", i)
	}
}
