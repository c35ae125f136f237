package tensor_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hexes parses C99 hex floats (as Python's float.hex prints them).
func hexes(t *testing.T, s ...string) []float32 {
	out := make([]float32, len(s))
	for i, h := range s {
		v, err := strconv.ParseFloat(h, 64)
		require.NoError(t, err, h)
		out[i] = float32(v)
	}
	return out
}

// sameFloats checks got against want: equal bits where rel is 0 (NaN
// matching NaN, signed zeros told apart), else within rel of want.
func sameFloats(t *testing.T, what string, want, got []float32, rel float64) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		w, g := float64(want[i]), float64(got[i])
		switch {
		case math.IsNaN(w) || math.IsInf(w, 0) || rel == 0:
			assert.True(t, math.Float32bits(want[i]) == math.Float32bits(got[i]) || math.IsNaN(w) && math.IsNaN(g),
				"%s[%d]: got %v, want %v", what, i, got[i], want[i])
		default:
			assert.InDelta(t, w, g, rel*math.Abs(w), "%s[%d]", what, i)
		}
	}
}

// TestMathOpsMatchTorch compares the new elementwise ops with PyTorch
// 1.13's float32 results at edge values: signs of zero remainders, ties of
// round, signed zeros and infinities of atan2, accuracy near zero, overflow
// bounds of sinh and cosh.
func TestMathOpsMatchTorch(t *testing.T) {
	d := openCPU(t)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	f := func(v ...float32) *tensor.Tensor { return tensor.FromFloat32s(d, v, len(v)) }
	read := func(x *tensor.Tensor) []float32 {
		v, err := x.Float32s()
		require.NoError(t, err)
		return v
	}
	negZero := float32(math.Copysign(0, -1))
	a, b := f(5, -5, 5, -5, 0.5, negZero, 7.5), f(3, 3, -3, -3, inf, 2, -2.5)
	sameFloats(t, "fmod", []float32{2, -2, 2, -2, 0.5, negZero, 0}, read(a.Fmod(b)), 0)
	sameFloats(t, "remainder", []float32{2, 1, -1, -2, 0.5, negZero, 0}, read(a.Remainder(b)), 0)
	sameFloats(t, "atan2", []float32{0, negZero, math.Pi, -math.Pi, 3 * math.Pi / 4, -math.Pi / 4, math.Pi},
		read(f(0, negZero, 0, negZero, inf, -inf, 1).Atan2(f(0, 0, negZero, negZero, -inf, inf, -inf))), 0)
	sameFloats(t, "round", []float32{0, 2, 2, negZero, -2, 4, -2}, read(f(0.5, 1.5, 2.5, -0.5, -1.5, 3.7, -2.2).Round()), 0)
	sameFloats(t, "trunc", []float32{0, 1, negZero, -2}, read(f(0.5, 1.5, -0.5, -2.7).Trunc()), 0)
	sameFloats(t, "lerp", []float32{3, 4.5, 0.394}, read(f(1, 2, 0.1).Lerp(f(3, 7, 0.7), f(1, 0.5, 0.49))), 0)
	sameFloats(t, "expm1", hexes(t, "0x1.b7cdfep-34", "-0x1.4f8aeap-17", "0x1.4c2532p-1"), read(f(1e-10, -1e-5, 0.5).Expm1()), 1e-7)
	sameFloats(t, "log1p", append(hexes(t, "0x1.b7cdfep-34", "-0x1.4f8bc6p-17"), -inf, nan), read(f(1e-10, -1e-5, -1, -2).Log1p()), 1e-7)
	sameFloats(t, "sinh", append(hexes(t, "0x1.4f8b58p-17", "0x1.51c2ccp+127", "-0x1.f7e18p+127"), 0), read(f(1e-5, 89, -89.4, 0).Sinh()), 1e-6)
	sameFloats(t, "cosh", append(hexes(t, "0x1.000008p+0", "0x1.51c2ccp+127"), inf), read(f(1e-3, 89, -89.5).Cosh()), 1e-6)
	sameFloats(t, "asin", []float32{math.Pi / 2, -math.Pi / 2, nan}, read(f(1, -1, 1.5).Asin()), 0)
	sameFloats(t, "acos", []float32{0, math.Pi, nan}, read(f(1, -1, 1.5).Acos()), 0)
	sameFloats(t, "log2", []float32{3, -inf, nan, 10}, read(f(8, 0, -1, 1024).Log2()), 0)
	sameFloats(t, "nan_to_num", []float32{1.5, math.MaxFloat32, -math.MaxFloat32}, read(f(nan, inf, -inf).NanToNum(1.5, math.MaxFloat32, -math.MaxFloat32)), 0)
	h, err := f(nan, inf, -inf).Cast(tensor.Float16).NanToNumDefault().Cast(tensor.Float32).Float32s()
	require.NoError(t, err)
	assert.Equal(t, []float32{0, 65504, -65504}, h)
	// ClampTensor's value and gradients, including lo = hi, hi < lo and NaN.
	x := f(0, 0.5, 2, -1, 0.3, nan, 0.2).SetRequiresGrad(true)
	lo := f(1, 1, 0, 0, 0, 0, nan).SetRequiresGrad(true)
	hi := f(1, 0, 1, 1, 1, 1, 1).SetRequiresGrad(true)
	y := x.ClampTensor(lo, hi)
	sameFloats(t, "clamp_tensor", []float32{1, 0, 1, 0, 0.3, nan, nan}, read(y), 0)
	require.NoError(t, y.Sum().Backward())
	sameFloats(t, "clamp_tensor grad x", []float32{0, 0, 0, 0, 1, 0, 0}, read(x.Grad()), 0)
	sameFloats(t, "clamp_tensor grad lo", []float32{0, 0, 0, 1, 0, 0, 0}, read(lo.Grad()), 0)
	sameFloats(t, "clamp_tensor grad hi", []float32{0, 1, 1, 0, 0, 0, 0}, read(hi.Grad()), 0)
	assert.True(t, refused(func() { tensor.FromInt32s(d, []int32{1}, 1).Fmod(tensor.FromInt32s(d, []int32{1}, 1)) }))
	assert.True(t, refused(func() { f(1).ClampTensor(nil, nil) }))
	assert.True(t, refused(func() { f(1, 2, 3).Glu(0) }))
}

// TestActivationsMatchTorch compares values and gradients with PyTorch
// 1.13's at the kinks (0, ±3) and beside them.
func TestActivationsMatchTorch(t *testing.T) {
	d := openCPU(t)
	for _, c := range []struct {
		name string
		f    func(*tensor.Tensor) *tensor.Tensor
		want []string
		grad []float32
	}{
		{"hardswish", (*tensor.Tensor).Hardswish, []string{"-0x0p+0", "0x1.8p+1", "0x0p+0", "-0x1.555556p-2", "0x1.255556p+1"}, []float32{-0.5, 1.5, 0.5, 0.1666666567325592, 1.3333332538604736}},
		{"hardsigmoid", (*tensor.Tensor).Hardsigmoid, []string{"0x0p+0", "0x1p+0", "0x1p-1", "0x1.555556p-2", "0x1.d55556p-1"}, []float32{0, 0, 0.1666666716337204, 0.1666666716337204, 0.1666666716337204}},
		{"leaky_relu(0.1)", func(x *tensor.Tensor) *tensor.Tensor { return x.LeakyRelu(0.1) }, []string{"-0x1.333334p-2", "0x1.8p+1", "0x0p+0", "-0x1.99999ap-4", "0x1.4p+1"}, []float32{0.1, 1, 0.1, 0.1, 1}},
		{"elu(0.5)", func(x *tensor.Tensor) *tensor.Tensor { return x.Elu(0.5) }, []string{"-0x1.e6825p-2", "0x1.8p+1", "0x0p+0", "-0x1.43a54ep-2", "0x1.4p+1"}, []float32{0.024893533438444138, 1, 0.5, 0.18393972516059875, 1}},
		{"selu", (*tensor.Tensor).Selu, []string{"-0x1.abaa64p+0", "0x1.93781cp+1", "0x0p+0", "-0x1.1c802cp+0", "0x1.50396ep+1"}, []float32{0.08753060549497604, 1.0507010221481323, 1.7580993175506592, 0.6467686295509338, 1.0507010221481323}},
	} {
		x := tensor.FromFloat32s(d, []float32{-3, 3, 0, -1, 2.5}, 5).SetRequiresGrad(true)
		y := c.f(x)
		got, err := y.Float32s()
		require.NoError(t, err)
		sameFloats(t, c.name, hexes(t, c.want...), got, 1e-6)
		require.NoError(t, y.Sum().Backward())
		g, err := x.Grad().Float32s()
		require.NoError(t, err)
		sameFloats(t, c.name+" grad", c.grad, g, 1e-6)
	}
	// At NaN the value is NaN and the gradient is PyTorch's.
	for _, c := range []struct {
		name string
		f    func(*tensor.Tensor) *tensor.Tensor
		grad float32
	}{
		{"elu", func(x *tensor.Tensor) *tensor.Tensor { return x.Elu(1) }, 1},
		{"selu", (*tensor.Tensor).Selu, 1.0507010221481323},
		{"hardswish", (*tensor.Tensor).Hardswish, 1},
		{"hardsigmoid", (*tensor.Tensor).Hardsigmoid, 0},
		{"leaky_relu", func(x *tensor.Tensor) *tensor.Tensor { return x.LeakyRelu(0.1) }, 0.1},
	} {
		x := tensor.FromFloat32s(d, []float32{float32(math.NaN())}, 1).SetRequiresGrad(true)
		y := c.f(x)
		v, err := y.Float32s()
		require.NoError(t, err)
		assert.True(t, math.IsNaN(float64(v[0])), c.name)
		require.NoError(t, y.Sum().Backward())
		g, err := x.Grad().Float32s()
		require.NoError(t, err)
		sameFloats(t, c.name+" grad at NaN", []float32{c.grad}, g, 1e-6)
	}
}
