package tensor_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/assert"
)

func TestPrintLikePyTorch(t *testing.T) {
	dev := openCPU(t)
	cases := []struct {
		t    *tensor.Tensor
		want string
	}{
		{tensor.FromFloat32s(dev, []float32{1, 2, 3, 4}, 2, 2), "tensor([[1., 2.],\n        [3., 4.]], device=cpu:0)"},
		{tensor.FromFloat32s(dev, []float32{0.5, -1.25, 3}, 3), "tensor([ 0.5000, -1.2500,  3.0000], device=cpu:0)"},
		{tensor.FromFloat32s(dev, []float32{1e-5, 2}, 2), "tensor([1.0000e-05, 2.0000e+00], device=cpu:0)"},
		{tensor.FromFloat32s(dev, []float32{float32(math.NaN()), float32(math.Inf(-1)), 1}, 3), "tensor([nan, -inf, 1.], device=cpu:0)"},
		{tensor.Full(dev, 7), "tensor(7., device=cpu:0)"},
		{tensor.FromFloat32s(dev, []float32{1, 2, 3, 4, 5, 6, 7, 8}, 2, 2, 2), "tensor([[[1., 2.],\n         [3., 4.]],\n\n        [[5., 6.],\n         [7., 8.]]], device=cpu:0)"},
		{tensor.FromFloat32s(dev, []float32{1, -20}, 2).Cast(tensor.Int32), "tensor([  1, -20], device=cpu:0, dtype=int32)"},
		{tensor.FromFloat32s(dev, []float32{1, 0}, 2).Gt(tensor.Zeros(dev, 2)), "tensor([ True, False], device=cpu:0, dtype=bool)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, fmt.Sprint(c.t))
	}
	x := tensor.FromFloat32s(dev, []float32{1, 2}, 2)
	assert.Equal(t, "tensor([1., 2.], shape=[2], device=cpu:0)", fmt.Sprintf("%+v", x))
	assert.Equal(t, x.String(), fmt.Sprintf("%#v", x))
	var none *tensor.Tensor
	assert.Equal(t, "Tensor(nil)", fmt.Sprint(none))
}

func TestPrintElidesLargeTensors(t *testing.T) {
	dev := openCPU(t)
	s := fmt.Sprint(tensor.Arange(dev, 0, 2000, 1))
	assert.Equal(t, "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03, 1.9990e+03], device=cpu:0)", s)
	m := fmt.Sprint(tensor.Arange(dev, 0, 100*100, 1).Reshape(100, 100))
	lines := strings.Split(m, "\n")
	assert.Len(t, lines, 7, m) // three rows, "...", three rows
	assert.Equal(t, "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.7000e+01, 9.8000e+01, 9.9000e+01],", lines[0])
	assert.Equal(t, "        ...,", lines[3])
}

func TestPrintOfAGraphThatNeedsGradients(t *testing.T) {
	dev := openCPU(t)
	x := tensor.FromFloat32s(dev, []float32{1, 2}, 2).SetRequiresGrad(true)
	y := x.MulScalar(2)
	assert.Equal(t, "tensor([2., 4.], device=cpu:0)", fmt.Sprint(y))
	y.Sum().Backward()
	g, err := x.Grad().Float32s()
	assert.NoError(t, err)
	assert.Equal(t, []float32{2, 2}, g)
}
