package tensor_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// The expected gradients in this file are PyTorch 1.13's.

// requireUsagePanic runs fn, which must panic with a *tensor.UsageError whose
// message contains every one of want.
func requireUsagePanic(t *testing.T, fn func(), want ...string) {
	t.Helper()
	err := tensor.Catch(fn)
	require.Error(t, err, "want a usage error")
	var ue *tensor.UsageError
	require.True(t, errors.As(err, &ue), "%T %v is not a *tensor.UsageError", err, err)
	for _, w := range want {
		require.Contains(t, err.Error(), w)
	}
}

// requireSameFloats compares gradients exactly where they are integers,
// infinite or NaN, and to a relative 1e-6 elsewhere.
func requireSameFloats(t *testing.T, want []float64, got []float32) {
	t.Helper()
	require.Len(t, got, len(want))
	for i, w := range want {
		g := float64(got[i])
		switch {
		case math.IsNaN(w):
			require.True(t, math.IsNaN(g), "element %d: got %g, want NaN (all %v)", i, g, got)
		case math.IsInf(w, 0) || w == math.Trunc(w):
			require.Equal(t, w, g, "element %d (all %v)", i, got)
		default:
			require.InDelta(t, w, g, 1e-6*math.Abs(w), "element %d (all %v)", i, got)
		}
	}
}

// gradOf returns the gradient of sum(f(x)) with respect to x.
func gradOf(t *testing.T, dev *tensor.Device, x []float32, shape []int, f func(*tensor.Tensor) *tensor.Tensor) []float32 {
	t.Helper()
	xt := tensor.FromFloat32s(dev, x, shape...).SetRequiresGrad(true)
	require.NoError(t, f(xt).Sum().Backward())
	require.NotNil(t, xt.Grad(), "no gradient")
	g, err := xt.Grad().Float32s()
	require.NoError(t, err)
	return g
}

func TestBackwardNeedsOneElementOrAGradient(t *testing.T) {
	dev := openCPU(t)
	x := tensor.FromFloat32s(dev, []float32{1, 2}, 2).SetRequiresGrad(true)
	requireUsagePanic(t, func() { _ = x.MulScalar(3).Backward() }, "Backward", "[2]", "BackwardWith")
	one := tensor.FromFloat32s(dev, []float32{5}, 1).SetRequiresGrad(true)
	require.NoError(t, one.MulScalar(3).Backward(), "a tensor of one element needs no gradient argument")
	g, err := one.Grad().Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{3}, g)
}

func TestBackwardWithRejectsBadSeeds(t *testing.T) {
	dev := openCPU(t)
	other := openCPU(t)
	s := tensor.Full(dev, 2).SetRequiresGrad(true) // a scalar, shape []
	requireUsagePanic(t, func() { _ = s.Mul(s).BackwardWith(tensor.Ones(dev, 5, 7)) }, "BackwardWith", "[5 7]", "[]")
	v := tensor.FromFloat32s(dev, []float32{1, 2, 3}, 3).SetRequiresGrad(true)
	requireUsagePanic(t, func() { _ = v.Mul(v).BackwardWith(tensor.Ones(dev, 1, 3)) }, "BackwardWith", "[1 3]", "[3]")
	requireUsagePanic(t, func() { _ = v.Mul(v).BackwardWith(tensor.Ones(dev, 1)) }, "BackwardWith", "[1]", "[3]")
	requireUsagePanic(t, func() { _ = v.Mul(v).BackwardWith(tensor.Ones(other, 3)) }, "BackwardWith", "device")
	require.Nil(t, s.Grad())
	require.Nil(t, v.Grad())

	// A seed of the right shape is used as given, in any float dtype.
	require.NoError(t, v.Mul(v).BackwardWith(tensor.FromFloat32s(dev, []float32{1, 0, 2}, 3).Cast(tensor.Float16)))
	g, err := v.Grad().Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{2, 0, 12}, g)
}

func TestBackwardErrorsNameThePassOnce(t *testing.T) {
	dev := openCPU(t)
	x := tensor.FromFloat32s(dev, []float32{1, 2, 3}, 3).SetRequiresGrad(true)
	var y *tensor.Tensor
	dev.Scope(func() {
		c := tensor.FromFloat32s(dev, []float32{4, 5, 6}, 3)
		y = x.Mul(c).Sum().Keep() // c is released with the scope
	})
	err := y.Backward()
	require.Error(t, err)
	require.Equal(t, 1, strings.Count(err.Error(), "tensor.Backward"), "%v", err)
	require.Contains(t, err.Error(), "used after")
}

func TestStepFunctionGradientsAreZero(t *testing.T) {
	dev := openCPU(t)
	x := []float32{-1.5, -1, 0, 0.5, 2}
	for name, f := range map[string]func(*tensor.Tensor) *tensor.Tensor{
		"Sign":  (*tensor.Tensor).Sign,
		"Floor": (*tensor.Tensor).Floor,
		"Ceil":  (*tensor.Tensor).Ceil,
	} {
		t.Run(name, func(t *testing.T) {
			requireSameFloats(t, []float64{0, 0, 0, 0, 0}, gradOf(t, dev, x, []int{5}, f))
			plus := func(x *tensor.Tensor) *tensor.Tensor { return f(x).Add(x.MulScalar(2)) }
			requireSameFloats(t, []float64{2, 2, 2, 2, 2}, gradOf(t, dev, x, []int{5}, plus))
		})
	}
}

func TestClampGradientAtItsBounds(t *testing.T) {
	dev := openCPU(t)
	x := []float32{float32(math.NaN()), -3, -2, 0, 1, 1.5}
	clamp := func(x *tensor.Tensor) *tensor.Tensor { return x.Clamp(-2, 1) }
	requireSameFloats(t, []float64{0, 0, 1, 1, 1, 0}, gradOf(t, dev, x, []int{6}, clamp))
	point := func(x *tensor.Tensor) *tensor.Tensor { return x.Clamp(0.5, 0.5) }
	requireSameFloats(t, []float64{0, 1, 0}, gradOf(t, dev, []float32{0, 0.5, 1}, []int{3}, point))
}

func TestProdGradientWithZeros(t *testing.T) {
	dev := openCPU(t)
	prod1 := func(x *tensor.Tensor) *tensor.Tensor { return x.Prod(1) }
	prod0 := func(x *tensor.Tensor) *tensor.Tensor { return x.Prod(0) }
	all := func(x *tensor.Tensor) *tensor.Tensor { return x.Prod() }
	keep := func(x *tensor.Tensor) *tensor.Tensor { return x.Prod(1).Unsqueeze(1).Mul(x) }
	for _, c := range []struct {
		name string
		x    []float32
		f    func(*tensor.Tensor) *tensor.Tensor
		want []float64
	}{
		{"one zero, axis 1", []float32{2, 0, 3, 1, 2, 3}, prod1, []float64{0, 6, 0, 6, 3, 2}},
		{"two zeros in a row", []float32{2, 0, 0, 1, 2, 3}, prod1, []float64{0, 0, 0, 6, 3, 2}},
		{"one zero, axis 0", []float32{2, 0, 3, 1, 2, 3}, prod0, []float64{1, 2, 3, 2, 0, 3}},
		{"all axes", []float32{2, 0, 3, 1, 2, 3}, all, []float64{0, 36, 0, 0, 0, 0}},
		{"all axes, two zeros", []float32{2, 0, 3, 1, 0, 3}, all, []float64{0, 0, 0, 0, 0, 0}},
		{"no zero", []float32{2, -1, 3, 1, 2, 0.5}, all, []float64{-3, 6, -2, -6, -3, -12}},
		// The product feeds a second use of x.
		{"used twice", []float32{2, 0, 3, 1, 2, 3}, keep, []float64{0, 30, 0, 42, 24, 18}},
	} {
		t.Run(c.name, func(t *testing.T) {
			requireSameFloats(t, c.want, gradOf(t, dev, c.x, []int{2, 3}, c.f))
		})
	}
}

func TestPowGradientsAtZero(t *testing.T) {
	dev := openCPU(t)
	a := []float32{0, 0, 0, 0, 0, 0, 2, 2, -2, -2, 0.5, 0.5}
	b := []float32{-1, 0, 0.5, 1, 2, 3, 0, -1, 2, 3, 0, 2.5}
	inf := math.Inf(1)
	wantA := []float64{-inf, 0, inf, 1, 0, 0, 0, -0.25, -4, 12, 0, 0.8838834762573242}
	wantB := []float64{-inf, 0, 0, 0, 0, 0, 0.6931471824645996, 0.3465735912322998, math.NaN(), math.NaN(), -0.6931471824645996, -0.12253226339817047}
	at := tensor.FromFloat32s(dev, a, len(a)).SetRequiresGrad(true)
	bt := tensor.FromFloat32s(dev, b, len(b)).SetRequiresGrad(true)
	require.NoError(t, at.Pow(bt).Sum().Backward())
	ga, err := at.Grad().Float32s()
	require.NoError(t, err)
	gb, err := bt.Grad().Float32s()
	require.NoError(t, err)
	requireSameFloats(t, wantA, ga)
	requireSameFloats(t, wantB, gb)

	x := []float32{0, 0, -2, 3}
	for _, c := range []struct {
		v    float64
		want []float64
	}{
		{0, []float64{0, 0, 0, 0}},
		{1, []float64{1, 1, 1, 1}},
		{2, []float64{0, 0, -4, 6}},
		{0.5, []float64{inf, inf, math.NaN(), 0.28867512941360474}},
		{-1, []float64{-inf, -inf, -0.25, -0.1111111119389534}},
	} {
		pow := func(x *tensor.Tensor) *tensor.Tensor { return x.PowScalar(c.v) }
		requireSameFloats(t, c.want, gradOf(t, dev, x, []int{4}, pow))
	}
}

func TestStdGradientOfConstantIsZero(t *testing.T) {
	dev := openCPU(t)
	// Rows of equal values have standard deviation 0, where PyTorch gives
	// the gradient 0 (its std backward masks a zero result).
	x := tensor.FromFloat32s(dev, []float32{2, 2, 2, 1, 2, 4}, 2, 3).SetRequiresGrad(true)
	require.NoError(t, x.Std(1, 1).Sum().Backward())
	g, err := x.Grad().Float32s()
	require.NoError(t, err)
	requireSameFloats(t, []float64{0, 0, 0, -0.4364357590675354, -0.10910891741514206, 0.5455447435379028}, g)

	y := tensor.FromFloat32s(dev, []float32{3, 3}, 2).SetRequiresGrad(true)
	require.NoError(t, y.StdKeepDim(0, 0).Sum().Backward())
	gy, err := y.Grad().Float32s()
	require.NoError(t, err)
	requireSameFloats(t, []float64{0, 0}, gy)
}
