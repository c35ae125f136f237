package gputest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// softmaxRef is the float64 softmax (or log-softmax) of every row of length
// n of vals, with PyTorch's special cases: a row holding a NaN or +Inf, or
// only -Inf, is NaN everywhere; a -Inf elsewhere gives 0 (-Inf).
func softmaxRef(vals []float64, n int, log bool) []float64 {
	out := make([]float64, len(vals))
	for r := 0; r < len(vals); r += n {
		row := vals[r : r+n]
		m, bad := math.Inf(-1), false
		for _, x := range row {
			bad = bad || math.IsNaN(x) || math.IsInf(x, 1)
			m = max(m, x)
		}
		if bad || math.IsInf(m, -1) {
			for j := range row {
				out[r+j] = math.NaN()
			}
			continue
		}
		s := 0.0
		for _, x := range row {
			s += math.Exp(x - m)
		}
		for j, x := range row {
			if log {
				// x - m in float32, as PyTorch: it may overflow to -Inf.
				out[r+j] = float64(float32(x-m)) - math.Log(s)
			} else {
				out[r+j] = math.Exp(x-m) / s
			}
		}
	}
	return out
}

// Tolerances of float32 softmax against the float64 reference: the sum of
// a row and exp each carry a few units in the last place.
var (
	softmaxTol    = Tol{Abs: 1e-9, Rel: 3e-5}
	logSoftmaxTol = Tol{Abs: 3e-5, Rel: 1e-5}
)

// softmaxTolFor returns the tolerance of a softmax or log-softmax.
func softmaxTolFor(log bool) Tol {
	if log {
		return logSoftmaxTol
	}
	return softmaxTol
}

// sequence is a Gen that returns vals in order, then repeats them.
func sequence(vals []float64) Gen {
	i := 0
	return func(*rand.Rand) float64 {
		v := vals[i%len(vals)]
		i++
		return v
	}
}

// rowSoftmaxer returns d's row softmax, or skips the test when d has none.
func rowSoftmaxer(t *testing.T, d device.Device) device.RowSoftmaxer {
	s, ok := d.(device.RowSoftmaxer)
	if !ok {
		t.Skipf("%s has no row softmax kernel", d.Info().Backend)
	}
	return s
}

// checkSoftmax runs the softmax of in with each setting of Log in logs
// (both when none) into a fresh output at an odd offset and checks it
// against the reference, and that the elements around the output keep
// their poison.
func checkSoftmax(t *testing.T, d device.Device, what string, in Tensor, logs ...bool) {
	t.Helper()
	sm := rowSoftmaxer(t, d)
	n := in.View.Shape[len(in.View.Shape)-1]
	if len(logs) == 0 {
		logs = []bool{false, true}
	}
	for _, log := range logs {
		w := fmt.Sprintf("%s log=%v", what, log)
		out := Output(t, d, device.Float32, 1, in.View.Shape)
		require.NoError(t, sm.Softmax(&device.SoftmaxKernel{In: in.View, Out: out, Log: log}), w)
		all := Download(t, d, out.Buf, device.Float32, 0, out.NumElements()+2)
		Check(t, w, all[1:len(all)-1], softmaxRef(in.Values, n, log), softmaxTolFor(log))
		poison := math.Float32frombits(0xABABABAB)
		assert.Equal(t, []float64{float64(poison), float64(poison)}, []float64{all[0], all[len(all)-1]}, "%s: wrote outside Out", w)
	}
}

func testSoftmax(t *testing.T, d device.Device) {
	rowSoftmaxer(t, d)
	rng := NewRand(t)
	f32 := device.Float32
	t.Run("Lengths", func(t *testing.T) {
		for _, n := range []int{1, 2, 63, 64, 65, 255, 256, 257, 1000, 3071, 3072, 3073, 5000, 100000} {
			rows := max(1, min(5, 20000/n))
			in := Make(t, d, rng, f32, []int{rows, n}, Contiguous, func(r *rand.Rand) float64 { return 4 * r.NormFloat64() })
			checkSoftmax(t, d, fmt.Sprintf("[%d %d]", rows, n), in)
		}
	})
	t.Run("Layouts", func(t *testing.T) {
		for _, shape := range [][]int{{7}, {6, 7, 33}, {3, 2, 300}, {3, 4000}, {0, 5}} {
			for _, l := range Layouts {
				in := Make(t, d, rng, f32, shape, l, Normal(f32))
				checkSoftmax(t, d, fmt.Sprintf("%v %s", shape, l), in)
			}
		}
	})
	t.Run("ManyRows", func(t *testing.T) {
		in := Make(t, d, rng, f32, []int{2, 35000, 3}, Reversed, Normal(f32))
		checkSoftmax(t, d, "[2 35000 3] reversed", in)
		in = Make(t, d, rng, f32, []int{70000, 2}, Contiguous, WithSpecials(Normal(f32)))
		checkSoftmax(t, d, "[70000 2] with specials", in)
		// More workgroups than one grid dimension holds (65535): rows of
		// one element take one invocation each, 256 to a workgroup. A NaN
		// every seventh row shows a row written in another's place.
		rows := 256*65535 + 1000
		i := 0
		in = Make(t, d, rng, f32, []int{rows, 1}, Contiguous, func(r *rand.Rand) float64 {
			i++
			if i%7 == 0 {
				return math.NaN()
			}
			return r.NormFloat64()
		})
		checkSoftmax(t, d, fmt.Sprintf("[%d 1]", rows), in, true)
	})
	t.Run("Specials", func(t *testing.T) { RunSoftmaxSpecials(t, d) })
	t.Run("Refusals", func(t *testing.T) {
		sm := rowSoftmaxer(t, d)
		in := Make(t, d, rng, f32, []int{3, 4}, Contiguous, Normal(f32))
		ints := Make(t, d, rng, device.Int32, []int{3, 4}, Contiguous, Normal(device.Int32))
		empty := Make(t, d, rng, f32, []int{3, 0}, Contiguous, Normal(f32))
		out := Output(t, d, f32, 0, []int{3, 4})
		for what, k := range map[string]*device.SoftmaxKernel{
			"int32 input":    {In: ints.View, Out: out},
			"empty rows":     {In: empty.View, Out: Output(t, d, f32, 0, []int{3, 0})},
			"shape mismatch": {In: in.View, Out: Output(t, d, f32, 0, []int{4, 3})},
			"strided output": {In: in.View, Out: device.View{Buf: out.Buf, DType: f32, Shape: []int{3, 4}, Strides: []int{1, 3}}},
		} {
			assert.Error(t, sm.Softmax(k), what)
		}
		require.NoError(t, d.Sync())
	})
}

// testSoftmaxBindings runs row softmaxes whose views span more than the
// lowered binding size (LimitBindingBytes: 1024 float32 elements), which
// run in slabs of rows, and checks that a single row longer than a binding
// is refused with the binding error.
func testSoftmaxBindings(t *testing.T, d device.Device) {
	if _, ok := d.(device.RowSoftmaxer); !ok {
		return
	}
	rng := NewRand(t)
	f32 := device.Float32
	for _, c := range []struct {
		shape []int
		l     Layout
	}{{[]int{300, 50}, Contiguous}, {[]int{7, 9, 40}, Offset}, {[]int{5, 400}, Strided}, {[]int{4, 1000}, Contiguous}} {
		checkSoftmax(t, d, fmt.Sprintf("softmax %v %s over bindings", c.shape, c.l), Make(t, d, rng, f32, c.shape, c.l, Normal(f32)))
	}
	in := Make(t, d, rng, f32, []int{2, 2000}, Contiguous, Normal(f32))
	err := d.(device.RowSoftmaxer).Softmax(&device.SoftmaxKernel{In: in.View, Out: Output(t, d, f32, 0, []int{2, 2000})})
	require.Error(t, err, "a row longer than a binding")
	assert.Contains(t, err.Error(), "more than the device binds at once")
}

// testSoftmaxLoops checks, with the loop limit lowered to LimitLoops, that
// rows whose passes fit the loop budget run and a longer one is refused.
func testSoftmaxLoops(t *testing.T, d device.Device) {
	if _, ok := d.(device.RowSoftmaxer); !ok {
		return
	}
	rng := NewRand(t)
	f32 := device.Float32
	// Budget 32 iterations: two passes of 16 strides of 256 elements.
	checkSoftmax(t, d, "softmax [2 4096] under the lowered loop limit", Make(t, d, rng, f32, []int{2, 4096}, Contiguous, Normal(f32)))
	in := Make(t, d, rng, f32, []int{1, 4097}, Contiguous, Normal(f32))
	err := d.(device.RowSoftmaxer).Softmax(&device.SoftmaxKernel{In: in.View, Out: Output(t, d, f32, 0, []int{1, 4097})})
	require.Error(t, err, "a row over the loop budget")
	assert.Contains(t, err.Error(), "loop iterations")
}

// RunSoftmaxSpecials checks the row softmax of rows holding NaN, +Inf, -Inf,
// only -Inf and values near float32's range, kept in workgroup memory or
// not, against PyTorch's rules (skipped where d has no row softmax).
func RunSoftmaxSpecials(t *testing.T, d device.Device) {
	rng := NewRand(t)
	f32 := device.Float32
	inf, nan := math.Inf(1), math.NaN()
	rows := [][]float64{
		{1, 2, 3, 4},
		{1, nan, 3, 4},
		{1, 2, inf, 4},
		{-inf, 2, 3, -inf},
		{-inf, -inf, -inf, -inf},
		{-inf, inf, 0, 1},
		{nan, -inf, -inf, -inf},
		{1e30, -1e30, 0, 88},
		{-1e30, -1e30, -100, -100},
		{0, math.Copysign(0, -1), 0, 0},
		{-inf, -inf, -inf, 5},
		{3.4e38, -3.4e38, 0, 1},
	}
	var flat []float64
	for _, r := range rows {
		flat = append(flat, r...)
	}
	checkSoftmax(t, d, "special rows", Make(t, d, rng, f32, []int{len(rows), 4}, Contiguous, sequence(flat)))
	for _, x := range []float64{nan, inf, -inf, 7} {
		checkSoftmax(t, d, fmt.Sprintf("[3 1] of %v", x), Make(t, d, rng, f32, []int{3, 1}, Contiguous, sequence([]float64{x})))
	}
	// Rows kept in workgroup memory (300) and read twice (5000) with a
	// special value at the end, of only -Inf, and with random specials.
	for _, n := range []int{300, 5000} {
		for _, x := range []float64{nan, inf, -inf} {
			in := Make(t, d, rng, f32, []int{2, n}, Contiguous, Normal(f32))
			vals := slices.Clone(in.Values)
			vals[n-1], vals[2*n-2] = x, x
			require.NoError(t, d.Write(in.View.Buf, 0, Encode(f32, vals)))
			in.Values = vals
			checkSoftmax(t, d, fmt.Sprintf("[2 %d] with %v", n, x), in)
		}
		allNegInf := Make(t, d, rng, f32, []int{2, n}, Strided, sequence([]float64{-inf}))
		checkSoftmax(t, d, fmt.Sprintf("[2 %d] of -Inf", n), allNegInf)
		checkSoftmax(t, d, fmt.Sprintf("[40 %d] random specials", n), Make(t, d, rng, f32, []int{40, n}, Reversed, WithSpecials(Normal(f32))))
	}
}
