//go:build cgo

package vulkan

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// unaryKernel returns out = op(x) as an elementwise kernel over n float32s.
func unaryKernel(x, out device.Buffer, n int, op device.Op) *device.ElementwiseKernel {
	var pb device.Builder
	pb.Output(pb.Unary(op, pb.Input(0, device.Float32)))
	shape := []int{n}
	return &device.ElementwiseKernel{
		Shape:   shape,
		Inputs:  []device.View{device.Contiguous(x, device.Float32, 0, shape)},
		Program: pb.P,
		Outputs: []device.View{device.Contiguous(out, device.Float32, 0, shape)},
	}
}

func alloc(t testing.TB, d *Device, n int64) device.Buffer {
	b, err := d.Alloc(n)
	require.NoError(t, err)
	return b
}

func TestBarriersOnlyBetweenDependentKernels(t *testing.T) {
	d := openDevice(t)
	n := 64
	x := upload(t, d, f32Bytes(make([]float32, n)))
	outs := make([]device.Buffer, 4)
	for i := range outs {
		outs[i] = alloc(t, d, int64(4*n))
	}
	require.NoError(t, d.Sync())

	// Four kernels reading x, writing distinct buffers: no barrier.
	before := d.Stats()
	for _, o := range outs {
		require.NoError(t, d.Elementwise(unaryKernel(x, o, n, device.OpNeg)))
	}
	mid := d.Stats()
	assert.Equal(t, before.Barriers, mid.Barriers, "independent kernels need no barrier")
	assert.Equal(t, before.Dispatches+4, mid.Dispatches)

	// A chain: each kernel reads the previous one's output.
	for i := 1; i < len(outs); i++ {
		require.NoError(t, d.Elementwise(unaryKernel(outs[i-1], outs[i], n, device.OpNeg)))
	}
	after := d.Stats()
	assert.Equal(t, mid.Barriers+3, after.Barriers, "every dependent kernel waits for its input")
	require.NoError(t, d.Sync())
}

func TestChainResults(t *testing.T) {
	d := openDevice(t)
	n := 1000
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i) - 500
	}
	bx := upload(t, d, f32Bytes(x))
	a, b := alloc(t, d, int64(4*n)), alloc(t, d, int64(4*n))
	// 600 dependent kernels (more than two batches): x -> a -> b -> a ...
	src, dst := bx, a
	for i := 0; i < 600; i++ {
		require.NoError(t, d.Elementwise(unaryKernel(src, dst, n, device.OpNeg)))
		if i == 0 {
			src, dst = a, b
		} else {
			src, dst = dst, src
		}
	}
	got := bytesF32(download(t, d, src, 4*n))
	for i := range got {
		require.Equal(t, x[i], got[i], "600 negations are the identity, i=%d", i) // even count
	}
	assert.GreaterOrEqual(t, d.Stats().Submits, uint64(3))
}

func TestWriteIsOrderedWithKernels(t *testing.T) {
	d := openDevice(t)
	n := 256
	ones, twos := make([]float32, n), make([]float32, n)
	for i := range ones {
		ones[i], twos[i] = 1, 2
	}
	x := upload(t, d, f32Bytes(ones))
	y, z := alloc(t, d, int64(4*n)), alloc(t, d, int64(4*n))
	require.NoError(t, d.Elementwise(unaryKernel(x, y, n, device.OpNeg)))
	// x is in use by recorded work: this Write must land after that kernel
	// and before the next.
	require.NoError(t, d.Write(x, 0, f32Bytes(twos)))
	require.NoError(t, d.Elementwise(unaryKernel(x, z, n, device.OpNeg)))
	gy := bytesF32(download(t, d, y, 4*n))
	gz := bytesF32(download(t, d, z, 4*n))
	for i := 0; i < n; i++ {
		require.Equal(t, float32(-1), gy[i])
		require.Equal(t, float32(-2), gz[i])
	}
	// A large write goes through its own staging buffer.
	big := make([]float32, bigUpload/4+100)
	for i := range big {
		big[i] = float32(i)
	}
	bb := alloc(t, d, int64(4*len(big)))
	bo := alloc(t, d, int64(4*len(big)))
	require.NoError(t, d.Elementwise(unaryKernel(bb, bo, len(big), device.OpNeg)))
	require.NoError(t, d.Write(bb, 0, f32Bytes(big)))
	assert.Equal(t, big, bytesF32(download(t, d, bb, 4*len(big))))
}

func TestFreeWhilePending(t *testing.T) {
	d := openDevice(t)
	n := 4096
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i)
	}
	bx := upload(t, d, f32Bytes(x))
	out := alloc(t, d, int64(4*n))
	require.NoError(t, d.Elementwise(unaryKernel(bx, out, n, device.OpNeg)))
	live := len(d.live)
	d.Free(bx) // still used by the recorded kernel
	assert.Len(t, d.live, live, "freed when the batch completes")
	got := bytesF32(download(t, d, out, 4*n))
	for i := range got {
		require.Equal(t, -x[i], got[i])
	}
	assert.Len(t, d.live, live-1)
}

func TestConcurrentFree(t *testing.T) {
	d := openDevice(t)
	n := 256
	x := upload(t, d, f32Bytes(make([]float32, n)))
	var wg sync.WaitGroup
	frees := make(chan device.Buffer, 64)
	wg.Add(1)
	go func() { // a finalizer-like goroutine
		defer wg.Done()
		for b := range frees {
			d.Free(b)
		}
	}()
	for i := 0; i < 200; i++ {
		o := alloc(t, d, int64(4*n))
		require.NoError(t, d.Elementwise(unaryKernel(x, o, n, device.OpAbs)))
		frees <- o
	}
	close(frees)
	wg.Wait()
	require.NoError(t, d.Sync())
	assert.Len(t, d.live, 2, "x and the status buffer remain")
}

func TestClosedDevice(t *testing.T) {
	d := openDevice(t)
	b := alloc(t, d, 16)
	require.NoError(t, d.Close())
	_, err := d.Alloc(16)
	assert.ErrorIs(t, err, device.ErrClosed)
	assert.ErrorIs(t, d.Sync(), device.ErrClosed)
	assert.ErrorIs(t, d.Write(b, 0, []byte{1}), device.ErrClosed)
	d.Free(b) // no-op after Close
	require.NoError(t, d.Close(), "a second Close is a no-op")
}

func TestEmptyKernel(t *testing.T) {
	d := openDevice(t)
	x, o := alloc(t, d, 16), alloc(t, d, 16)
	before := d.Stats().Dispatches
	require.NoError(t, d.Elementwise(unaryKernel(x, o, 0, device.OpNeg)))
	assert.Equal(t, before, d.Stats().Dispatches, "no workgroups, no dispatch")
	require.NoError(t, d.Sync())
}
