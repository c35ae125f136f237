package nn_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// The layers over issue 15's functionals: gradients of input and
// parameters by central differences, and each layer's output against the
// functional it wraps (whose values the conformance suite checks).

func TestFunctionalLayerGradients(t *testing.T) {
	gen := func() nn.Option { return nn.WithGenerator(tensor.NewGenerator(7)) }
	ceil := func(p *nn.Pool) nn.Module { p.Options.CeilMode = true; return p }
	cases := []layerCase{
		{"ConvTranspose1d", func(d *tensor.Device) nn.Module {
			return nn.NewConvTranspose1d(d, 4, 6, 3, nn.Stride(2), nn.Padding(1), nn.OutputPadding(1), nn.Groups(2), gen())
		}, shapeOf(2, 4, 5), false},
		{"ConvTranspose2d", func(d *tensor.Device) nn.Module {
			return nn.NewConvTranspose2d(d, 3, 2, 3, nn.Stride(2), nn.Dilation(1, 2), nn.NoBias(), gen())
		}, shapeOf(1, 3, 3, 4), false},
		{"MaxPool1d", func(*tensor.Device) nn.Module { return nn.NewMaxPool1d(3, nn.Stride(2), nn.Padding(1)) }, spacedOf(2, 3, 9), false},
		{"MaxPool3d ceil", func(*tensor.Device) nn.Module { return ceil(nn.NewMaxPool3d(2)) }, spacedOf(1, 2, 3, 5, 4), false},
		{"AvgPool1d ceil", func(*tensor.Device) nn.Module { return ceil(nn.NewAvgPool1d(3, nn.Stride(2), nn.Padding(1))) }, shapeOf(2, 2, 8), false},
		{"AvgPool3d", func(*tensor.Device) nn.Module { return nn.NewAvgPool3d(2, nn.Stride(1)) }, shapeOf(1, 2, 3, 4, 3), false},
		{"InstanceNorm1d affine", func(d *tensor.Device) nn.Module { return nn.NewInstanceNorm1d(d, 3, true) }, shapeOf(2, 3, 6), false},
		{"InstanceNorm2d", func(d *tensor.Device) nn.Module { return nn.NewInstanceNorm2d(d, 2, false) }, shapeOf(2, 2, 3, 3), false},
		{"Upsample bilinear", func(*tensor.Device) nn.Module {
			return nn.NewUpsample(tensor.InterpolateOptions{Scale: []float64{2}, Mode: tensor.InterpolateLinear})
		}, shapeOf(1, 2, 3, 4), false},
		{"Upsample nearest", func(*tensor.Device) nn.Module {
			return nn.NewUpsample(tensor.InterpolateOptions{Size: []int{5, 7}})
		}, shapeOf(1, 2, 3, 4), false},
	}
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		for _, c := range cases {
			m := c.layer(dev)
			x := leaf(c.input(dev, r))
			inputs := append([]*tensor.Tensor{x.T}, nn.Parameters(m)...)
			gradCheck(t, r, c.name, inputs, func() *tensor.Tensor { return m.Forward(x.T) })
		}
	})
}

func TestFunctionalLayersMatchFunctionals(t *testing.T) {
	dev := nntest.CPU(t)
	r := nntest.Rand(t)
	ct := nn.NewConvTranspose2d(dev, 4, 6, 3, nn.Stride(2), nn.OutputPadding(1), nn.Groups(2))
	require.Equal(t, []int{4, 3, 3, 3}, ct.Weight.Shape(), "PyTorch's [in, out/groups, k...]")
	x := randn(dev, r, 2, 4, 5, 5).T
	y := ct.Forward(x)
	require.Equal(t, []int{2, 6, 12, 12}, y.Shape(), "(5-1)*2 + 3 + 1")
	want := x.ConvTranspose2d(ct.Weight, ct.Bias, tensor.ConvTransposeOptions{Stride: []int{2}, OutputPadding: []int{1}, Groups: 2})
	require.Equal(t, nntest.Values(t, want), nntest.Values(t, y))
	names := []string{}
	for _, n := range nn.StateDict(ct) {
		names = append(names, n.Name)
	}
	require.Equal(t, []string{"weight", "bias"}, names)

	in := nn.NewInstanceNorm2d(dev, 4, true, nn.Eps(1e-3))
	require.Len(t, nn.Parameters(in), 2)
	require.Empty(t, nn.Parameters(nn.NewInstanceNorm2d(dev, 4, false)), "PyTorch's default has no affine parameters")
	require.Equal(t, nntest.Values(t, x.InstanceNorm(in.Weight, in.Bias, 1e-3)), nntest.Values(t, in.Forward(x)))

	p := nn.NewMaxPool1d(2)
	x1 := randn(dev, r, 2, 3, 7).T
	require.Equal(t, []int{2, 3, 3}, p.Forward(x1).Shape())
	p.Options.CeilMode = true
	require.Equal(t, []int{2, 3, 4}, p.Forward(x1).Shape())
}

func TestFunctionalLayerMisuse(t *testing.T) {
	dev := nntest.CPU(t)
	for name, f := range map[string]func(){
		"ConvTranspose1d of 4-D":     func() { nn.NewConvTranspose1d(dev, 2, 2, 3).Forward(tensor.Zeros(dev, 1, 2, 3, 3)) },
		"ConvTranspose2d channels":   func() { nn.NewConvTranspose2d(dev, 2, 2, 3).Forward(tensor.Zeros(dev, 1, 3, 3, 3)) },
		"ConvTranspose2d groups":     func() { nn.NewConvTranspose2d(dev, 3, 2, 3, nn.Groups(2)) },
		"MaxPool1d OutputPadding":    func() { nn.NewMaxPool1d(2, nn.OutputPadding(1)) },
		"Conv2d OutputPadding":       func() { nn.NewConv2d(dev, 2, 2, 3, nn.OutputPadding(1)) },
		"AvgPool3d of 4-D":           func() { nn.NewAvgPool3d(2).Forward(tensor.Zeros(dev, 1, 2, 3, 3)) },
		"InstanceNorm2d channels":    func() { nn.NewInstanceNorm2d(dev, 3, false).Forward(tensor.Zeros(dev, 1, 2, 3, 3)) },
		"InstanceNorm1d of 4-D":      func() { nn.NewInstanceNorm1d(dev, 2, false).Forward(tensor.Zeros(dev, 1, 2, 3, 3)) },
		"InstanceNorm1d no channels": func() { nn.NewInstanceNorm1d(dev, 0, false) },
	} {
		err := tensor.Catch(f)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "nn.", name)
	}
}
