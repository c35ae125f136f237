package webgpu

import (
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

func TestSmokeAdd(t *testing.T) {
	d := gputest.Open(t, Name)
	a := gputest.Upload(t, d, device.Float32, []float64{1, 2, 3, 4, 5})
	b := gputest.Upload(t, d, device.Float32, []float64{10, 20, 30, 40, 50})
	out := gputest.Alloc(t, d, 20)
	var pb device.Builder
	pb.Output(pb.Binary(device.OpAdd, pb.Input(0, device.Float32), pb.Input(1, device.Float32)))
	sh := []int{5}
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: sh,
		Inputs:  []device.View{device.Contiguous(a, device.Float32, 0, sh), device.Contiguous(b, device.Float32, 0, sh)},
		Program: pb.P, Outputs: []device.View{device.Contiguous(out, device.Float32, 0, sh)}}))
	require.Equal(t, []float64{11, 22, 33, 44, 55}, gputest.Download(t, d, out, device.Float32, 0, 5))
}
