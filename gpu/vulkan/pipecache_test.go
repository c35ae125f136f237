//go:build cgo

package vulkan

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// scaleKernel returns out = x <op> c over xs, with c a program constant.
func scaleKernel(t *testing.T, d *Device, op device.Op, c float64, xs []float32) (*device.ElementwiseKernel, device.Buffer) {
	x := upload(t, d, f32Bytes(xs))
	out, err := d.Alloc(int64(4 * len(xs)))
	require.NoError(t, err)
	var pb device.Builder
	pb.Output(pb.Binary(op, pb.Input(0, device.Float32), pb.Const(c, device.Float32)))
	shape := []int{len(xs)}
	return &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{device.Contiguous(x, device.Float32, 0, shape)},
		Program: pb.P, Outputs: []device.View{device.Contiguous(out, device.Float32, 0, shape)}}, out
}

// TestPipelinesCachedBySignature checks that programs differing only in
// constants share a pipeline (the constants come from the params, so the
// driver cannot fold them: x/0 must give infinities and NaN), and that a
// different program gets a pipeline of its own.
func TestPipelinesCachedBySignature(t *testing.T) {
	d := openDevice(t)
	xs := []float32{1, -2, 0, float32(math.NaN()), float32(math.Inf(1))}
	run := func(op device.Op, c float64) []float32 {
		k, out := scaleKernel(t, d, op, c, xs)
		require.NoError(t, d.Elementwise(k))
		return bytesF32(download(t, d, out, 4*len(xs)))
	}
	pipes := func() int {
		d.mu.Lock()
		defer d.mu.Unlock()
		return len(d.pipelines.pipes)
	}
	check := func(what string, got []float32, f func(x float32) float32) {
		for i, x := range xs {
			want := f(x)
			if math.IsNaN(float64(want)) {
				assert.True(t, math.IsNaN(float64(got[i])), "%s, x=%v: got %v", what, x, got[i])
				continue
			}
			assert.Equal(t, want, got[i], "%s, x=%v", what, x)
		}
	}
	check("x/2", run(device.OpDiv, 2), func(x float32) float32 { return x / 2 })
	n := pipes()
	zero := float32(0)
	check("x/0", run(device.OpDiv, 0), func(x float32) float32 { return x / zero }) // ±Inf, NaN
	assert.Equal(t, n, pipes(), "a new constant must not create a pipeline")
	check("x*3", run(device.OpMul, 3), func(x float32) float32 { return x * 3 })
	assert.Equal(t, n+1, pipes(), "a new program needs its own pipeline")
}
