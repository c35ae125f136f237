package nn_test

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// names returns the names of ns.
func names(ns []nn.Named) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Name
	}
	return out
}

func TestStateDictNamesFollowPyTorch(t *testing.T) {
	dev := nntest.CPU(t)
	m := nn.NewSequential(
		nn.NewConv2d(dev, 1, 4, 3),
		nn.NewBatchNorm2d(dev, 4),
		nn.NewReLU(),
		nn.NewSequential(nn.NewFlatten(), nn.NewLinear(dev, 4*26*26, 10, nn.NoBias())),
		nn.NewLayerNorm(dev, []int{10}),
	)
	require.Equal(t, []string{"0.weight", "0.bias", "1.weight", "1.bias", "3.1.weight", "4.weight", "4.bias"}, names(m.NamedParameters()))
	require.Equal(t, []string{"1.running_mean", "1.running_var", "1.num_batches_tracked"}, names(m.NamedBuffers()))
	require.Len(t, nn.StateDict(m), 10)
	require.Equal(t, 4*1*9+4+4+4+4*26*26*10+10+10, nn.NumParameters(m))
	for _, p := range nn.Parameters(m) {
		require.True(t, p.RequiresGrad())
	}
	for _, b := range m.NamedBuffers() {
		require.False(t, b.Tensor.RequiresGrad(), b.Name)
	}
}

func TestTrainModePropagates(t *testing.T) {
	dev := nntest.CPU(t)
	drop := nn.NewDropout(0.5)
	m := nn.NewSequential(nn.NewSequential(drop), nn.NewReLU())
	x := tensor.Ones(dev, 100)
	nn.Eval(m)
	require.Same(t, x, drop.Forward(x))
	m.Train(true)
	require.NotSame(t, x, drop.Forward(x))
}

func TestOptionsAreChecked(t *testing.T) {
	dev := nntest.CPU(t)
	for name, f := range map[string]func(){
		"stride on Linear":         func() { nn.NewLinear(dev, 2, 3, nn.Stride(2)) },
		"negative size":            func() { nn.NewLinear(dev, -1, 3) },
		"groups not dividing":      func() { nn.NewConv2d(dev, 3, 4, 3, nn.Groups(2)) },
		"dilation on AvgPool2d":    func() { nn.NewAvgPool2d(2, nn.Dilation(2)) },
		"dropout above one":        func() { nn.NewDropout(1.5) },
		"wrong input width":        func() { nn.NewLinear(dev, 2, 3).Forward(tensor.Zeros(dev, 4, 5)) },
		"wrong conv channels":      func() { nn.NewConv2d(dev, 2, 3, 3).Forward(tensor.Zeros(dev, 1, 3, 8, 8)) },
		"wrong batchnorm rank":     func() { nn.NewBatchNorm2d(dev, 3).Forward(tensor.Zeros(dev, 2, 3)) },
		"float embedding indices":  func() { nn.NewEmbedding(dev, 4, 2).Forward(tensor.Zeros(dev, 3)) },
		"layernorm shape mismatch": func() { nn.NewLayerNorm(dev, []int{4}).Forward(tensor.Zeros(dev, 2, 5)) },
		"groupnorm groups":         func() { nn.NewGroupNorm(dev, 3, 4) },
		"nil layer":                func() { nn.NewSequential(nil) },
	} {
		err := tensor.Catch(f)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "nn.", name)
	}
	err := tensor.Catch(func() { nn.NewLinear(dev, 2, 3, nn.Stride(2), nn.Eps(1)) })
	require.ErrorContains(t, err, "Stride, Eps")
}

// moments returns the mean, standard deviation and largest magnitude of v.
func moments(v []float32) (mean, std, maxAbs float64) {
	for _, x := range v {
		mean += float64(x)
		maxAbs = math.Max(maxAbs, math.Abs(float64(x)))
	}
	mean /= float64(len(v))
	for _, x := range v {
		d := float64(x) - mean
		std += d * d
	}
	return mean, math.Sqrt(std / float64(len(v))), maxAbs
}

func TestDefaultInitMatchesPyTorch(t *testing.T) {
	dev := nntest.CPU(t)
	const in, out = 400, 300
	l := nn.NewLinear(dev, in, out)
	bound := 1 / math.Sqrt(in)
	for _, p := range l.NamedParameters() {
		mean, std, maxAbs := moments(nntest.Values(t, p.Tensor))
		require.LessOrEqual(t, maxAbs, bound, p.Name)
		require.InDelta(t, 0, mean, 4*bound/math.Sqrt(3*float64(p.Tensor.NumElements())), p.Name)
		if p.Name == "weight" {
			require.InDelta(t, bound/math.Sqrt(3), std, 0.02*bound, p.Name)
		}
	}
	c := nn.NewConv2d(dev, 8, 16, 3, nn.Groups(2))
	fanIn := 8 / 2 * 9
	_, _, maxAbs := moments(nntest.Values(t, c.Weight))
	require.LessOrEqual(t, maxAbs, 1/math.Sqrt(float64(fanIn)))
	require.Greater(t, maxAbs, 0.9/math.Sqrt(float64(fanIn)))

	bn := nn.NewBatchNorm2d(dev, 3)
	require.Equal(t, []float32{1, 1, 1}, nntest.Values(t, bn.Weight))
	require.Equal(t, []float32{0, 0, 0}, nntest.Values(t, bn.Bias))
	require.Equal(t, []float32{1, 1, 1}, nntest.Values(t, bn.RunningVar))

	_, std, _ := moments(nntest.Values(t, nn.NewEmbedding(dev, 200, 50).Weight))
	require.InDelta(t, 1, std, 0.05)
}

func TestInitializers(t *testing.T) {
	dev := nntest.CPU(t)
	g := tensor.NewGenerator(42)
	shape := []int{256, 128, 3}
	fanIn, fanOut := nn.Fans(shape)
	require.Equal(t, 128*3, fanIn)
	require.Equal(t, 256*3, fanOut)
	cases := []struct {
		name    string
		x       *tensor.Tensor
		std     float64
		uniform bool
	}{
		{"KaimingUniform relu fan_in", nn.KaimingUniform(dev, g, 0, nn.FanIn, "relu", shape...), math.Sqrt2 / math.Sqrt(float64(fanIn)), true},
		{"KaimingNormal relu fan_out", nn.KaimingNormal(dev, g, 0, nn.FanOut, "relu", shape...), math.Sqrt2 / math.Sqrt(float64(fanOut)), false},
		{"XavierUniform tanh", nn.XavierUniform(dev, g, nn.Gain("tanh", 0), shape...), 5.0 / 3 * math.Sqrt(2/float64(fanIn+fanOut)), true},
		{"XavierNormal", nn.XavierNormal(dev, g, 1, shape...), math.Sqrt(2 / float64(fanIn+fanOut)), false},
	}
	for _, c := range cases {
		mean, std, maxAbs := moments(nntest.Values(t, c.x))
		require.InDelta(t, 0, mean, 0.02*c.std, c.name)
		require.InDelta(t, c.std, std, 0.02*c.std, c.name)
		if c.uniform {
			require.LessOrEqual(t, maxAbs, c.std*math.Sqrt(3)*(1+1e-6), c.name)
		}
	}
	a := nntest.Values(t, nn.NewLinear(dev, 5, 4, nn.WithGenerator(tensor.NewGenerator(9))).Weight)
	b := nntest.Values(t, nn.NewLinear(dev, 5, 4, nn.WithGenerator(tensor.NewGenerator(9))).Weight)
	require.Equal(t, a, b, "one generator seed, one initialization")
	require.InDelta(t, math.Sqrt(2/(1+5.0)), nn.Gain("leaky_relu", math.Sqrt(5)), 1e-12)
	require.Error(t, tensor.Catch(func() { nn.Gain("swish", 0) }))
}
