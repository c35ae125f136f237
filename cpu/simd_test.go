package cpu

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/shaderflow/shaderflow/cpu/internal/gemm"
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ulpBound is the documented error of the SIMD kernel of a unary op (see
// cpu/internal/vec): at most maxULP ulps from the exact result, or at most
// maxAbs where the exact result is below absBelow in magnitude or x is
// within nearWidth of nearX (around a zero of the result).
type ulpBound struct{ maxULP, maxAbs, absBelow, nearX, nearWidth float64 }

// unaryBounds lists the ops whose SIMD kernels are approximations, with
// the bounds vec documents and tests (the "bound tested" column of its
// package doc); every other unary op is exact (correctly rounded, like
// device.UnaryF32).
var unaryBounds = map[device.Op]ulpBound{
	device.OpExp:          {1.5, 0x1p-149, 0x1p-126, 0, 0},
	device.OpLog:          {1, 0, 0, 0, 0},
	device.OpTanh:         {3, 0, 0, 0, 0},
	device.OpSigmoid:      {3, 0x1p-148, 0x1p-126, 0, 0},
	device.OpErf:          {2, 0, 0, 0, 0},
	device.OpGeluErf:      {3.5, 1e-42, 0x1p-118, 0, 0},
	device.OpGeluTanh:     {3, 1e-42, 0x1p-118, 0, 0},
	device.OpSilu:         {3, 1e-42, 0x1p-118, 0, 0},
	device.OpGeluErfGrad:  {4.5, 5e-8, 0x1p-126, -0.75, 0.25},
	device.OpGeluTanhGrad: {8, 5e-8, 0x1p-126, -0.75, 0.25},
	device.OpSin:          {2.5, 0, 0, 0, 0},
	device.OpCos:          {2.5, 0, 0, 0, 0},
	device.OpRsqrt:        {1.5, 0, 0, 0, 0},
}

// ulp32 returns the spacing of float32 numbers at the magnitude of y.
func ulp32(y float64) float64 {
	a := math.Abs(y)
	if a < 0x1p-126 {
		return 0x1p-149
	}
	a = math.Min(a, math.MaxFloat32)
	_, e := math.Frexp(a)
	return math.Ldexp(1, e-24)
}

// exact64 returns op(x) in float64 for the approximated ops: the device
// package's formulas without the final rounding, except that the GELU tails
// avoid the cancellation of 1+erf and 1+tanh (where device.UnaryF32 itself
// loses accuracy: it gives -0 for gelu(x) below x = -8.3, whose exact value
// is about -1e-18).
func exact64(op device.Op, x float32) float64 {
	f := float64(x)
	switch op {
	case device.OpExp:
		return math.Exp(f)
	case device.OpLog:
		return math.Log(f)
	case device.OpTanh:
		return math.Tanh(f)
	case device.OpSigmoid:
		return device.Sigmoid64(f)
	case device.OpErf:
		return math.Erf(f)
	case device.OpGeluErf:
		if f < 0 && !math.IsInf(f, -1) {
			return 0.5 * f * math.Erfc(-f/math.Sqrt2)
		}
		return 0.5 * f * (1 + math.Erf(f/math.Sqrt2))
	case device.OpGeluTanh:
		u := math.Sqrt(2/math.Pi) * (f + 0.044715*f*f*f)
		if u >= 0 || math.IsNaN(u) || math.IsInf(f, -1) {
			return 0.5 * f * (1 + math.Tanh(u))
		}
		return f * device.Sigmoid64(2*u)
	case device.OpSilu:
		return f * device.Sigmoid64(f)
	case device.OpGeluErfGrad, device.OpGeluTanhGrad:
		return device.UnaryF64(op, f)
	case device.OpSin:
		return math.Sin(f)
	case device.OpCos:
		return math.Cos(f)
	case device.OpRsqrt:
		return 1 / math.Sqrt(f)
	}
	return float64(device.UnaryF32(op, x))
}

// unaryClose reports whether got is an acceptable op(x): bit for bit
// device.UnaryF32's result for the exact ops, within vec's documented
// bound of the exact value for the approximated ones.
func unaryClose(op device.Op, x, got float32) bool {
	want := device.UnaryF32(op, x)
	if got == want || (got != got && want != want) {
		return true
	}
	b, ok := unaryBounds[op]
	if !ok {
		return false
	}
	ref := exact64(op, x)
	switch {
	case math.IsNaN(ref) || got != got:
		return math.IsNaN(ref) && got != got
	case math.IsInf(float64(got), 0) || math.Abs(ref) > math.MaxFloat32:
		return float64(float32(ref)) == float64(got)
	}
	diff := math.Abs(float64(got) - ref)
	near := math.Abs(ref) < b.absBelow || math.Abs(float64(x)-b.nearX) < b.nearWidth
	return diff <= b.maxULP*ulp32(ref) || (near && diff <= b.maxAbs)
}

// useSeams installs s for the rest of the test and puts the previous seams
// back afterwards. Tests that call it must not run in parallel.
func useSeams(t testing.TB, s seams) {
	prev := currentSeams()
	s.install()
	t.Cleanup(prev.install)
}

func TestInfoReportsActiveISA(t *testing.T) {
	info := hostInfo()
	assert.Equal(t, ISA(), info.Features.SIMD)
	assert.Equal(t, vec.Current().String(), strings.Fields(ISA())[0])
	env := os.Getenv(vec.EnvVar)
	if env == "" {
		assert.Equal(t, vec.Detected(), vec.Current(), "no cap: the best level")
		return
	}
	want, err := vec.ParseLevel(env)
	require.NoError(t, err)
	want = min(want, vec.Detected())
	assert.Equal(t, want.String(), vec.Current().String(), "%s=%s", vec.EnvVar, env)
	assert.Equal(t, want.String(), gemm.ISA(), "gemm follows %s=%s", vec.EnvVar, env)
}

func TestSeamsSwapAndRestore(t *testing.T) {
	simd := currentSeams()
	t.Run("go", func(t *testing.T) {
		useSeams(t, goSeams)
		assert.Equal(t, "go", simdName)
		x := []float32{1, -2, 3}
		unaryF32[device.OpExp](x, x)
		assert.Equal(t, device.UnaryF32(device.OpExp, 1), x[0], "the pure-Go exp is device.UnaryF32")
	})
	assert.Equal(t, simd.name, simdName, "restored")
}

// TestSIMDSeamsMatchGo checks every replaced seam against its pure-Go
// kernel on random data and special values, at lengths around the vector
// widths, with dst aliasing a source: arithmetic and conversions exactly,
// transcendental functions within vec's documented bounds.
func TestSIMDSeamsMatchGo(t *testing.T) {
	r := newRand(t)
	for _, n := range []int{0, 1, 7, 15, 16, 17, 31, 33, 100, chunkLen} {
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = float32(r.NormFloat64()*4), float32(r.NormFloat64()*4)
		}
		for i := 0; i < n && i < len(specials); i++ {
			x[i] = float32(specials[i])
			y[(i+3)%n] = float32(specials[i])
		}
		for op := device.OpNeg; op <= device.OpCeil; op++ {
			f := unaryF32[op]
			if f == nil {
				continue
			}
			want, got := make([]float32, n), append([]float32(nil), x...)
			goSeams.unary[op](want, x)
			f(got, got)
			for i := range want {
				require.True(t, unaryClose(op, x[i], got[i]), "%s(%v) = %v, want about %v", op, x[i], got[i], want[i])
			}
		}
		exact := func(what string, want, got []float32) {
			for i := range want {
				if want[i] != got[i] && !(want[i] != want[i] && got[i] != got[i]) {
					require.Failf(t, "mismatch", "%s at %d of %d: got %v, want %v (x=%v y=%v)", what, i, n, got[i], want[i], x[i], y[i])
				}
			}
		}
		for op := device.OpAdd; op <= device.OpMin; op++ {
			want, got := make([]float32, n), append([]float32(nil), y...)
			goSeams.binary[op](want, x, y)
			binaryF32[op](got, x, got)
			exact(op.String(), want, got)
			for _, s := range []float32{2.5, -0.0, float32(math.NaN())} {
				goSeams.binaryScalar[op](want, x, s)
				binaryF32Scalar[op](got, x, s)
				exact(op.String()+" scalar", want, got)
				goSeams.scalarBin[op](want, x, s)
				scalarBinaryF32[op](got, x, s)
				exact("scalar "+op.String(), want, got)
			}
		}
		h, hw := make([]uint16, n), make([]uint16, n)
		f32ToHalf(h, x)
		goSeams.toHalf(hw, x)
		require.Equal(t, hw, h, "float16 of %v", x)
		f32ToBF16(h, x)
		goSeams.toBF16(hw, x)
		require.Equal(t, hw, h, "bfloat16")
		want, got := make([]float32, n), make([]float32, n)
		goSeams.halfTo(want, hw)
		halfToF32(got, hw)
		exact("from float16", want, got)
		goSeams.bf16To(want, hw)
		bf16ToF32(got, hw)
		exact("from bfloat16", want, got)
		if n > 0 {
			for _, f := range []struct {
				name      string
				simd, ref func([]float32) int
			}{{"argmax", argMaxF32, goSeams.argMax}, {"argmin", argMinF32, goSeams.argMin}} {
				require.Equal(t, f.ref(x), f.simd(x), "%s of %v", f.name, x)
			}
			assert.Equal(t, math.IsNaN(float64(goSeams.max(x))), math.IsNaN(float64(maxF32(x))))
		}
		require.InDelta(t, goSeams.sum(x), sumF32(x), 1e-9*float64(n+1)*16, "sum")
		ref := make([]float32, n)
		fmaF32(got, x, y, y)
		for i := range ref {
			ref[i] = float32(math.FMA(float64(x[i]), float64(y[i]), float64(y[i])))
		}
		exact("fma (rounded once)", ref, got)
	}
}

// TestVectorized checks which ops report SIMD kernels (docs/ops.md shows them).
func TestVectorized(t *testing.T) {
	for _, op := range []device.Op{device.OpExp, device.OpAdd, device.OpLt, device.OpWhere, device.OpFma} {
		assert.True(t, Vectorized(op), "%s", op)
	}
	for _, op := range []device.Op{device.OpFloor, device.OpPow, device.OpSoftplus, device.OpInput, device.NumOps} {
		assert.False(t, Vectorized(op), "%s", op)
	}
}
