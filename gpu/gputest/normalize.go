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

// normalizeRef is the float64 normalization of every row of length n of x,
// (x − mean)·rstd with rstd = 1/sqrt(var + eps) and the biased variance,
// and, with g, its input gradient rstd·((g − x̂·mean(g·x̂)) − mean(g)) (in
// the kernels' order, which fixes the IEEE results of infinities in g). A
// row of x holding NaN or ±Inf is NaN everywhere.
func normalizeRef(x, g []float64, n int, eps float64) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < len(x); r += n {
		row := x[r : r+n]
		mean, rstd := rowMoments(row, eps)
		if math.IsNaN(mean) || math.IsInf(mean, 0) {
			for j := range row {
				out[r+j] = math.NaN()
			}
			continue
		}
		for j, v := range row {
			out[r+j] = (v - mean) * rstd
		}
		if g == nil {
			continue
		}
		mg, mgx := 0.0, 0.0
		for j := r; j < r+n; j++ {
			mg += g[j]
			mgx += g[j] * out[j]
		}
		mg, mgx = mg/float64(n), mgx/float64(n)
		for j := r; j < r+n; j++ {
			out[j] = ((g[j] - out[j]*mgx) - mg) * rstd
		}
	}
	return out
}

// rowMoments returns row's mean and 1/sqrt(var + eps) with the biased
// variance; the mean is NaN or ±Inf when row holds NaN or ±Inf.
func rowMoments(row []float64, eps float64) (mean, rstd float64) {
	n := float64(len(row))
	for _, v := range row {
		mean += v
	}
	mean /= n
	sq := 0.0
	for _, v := range row {
		sq += (v - mean) * (v - mean)
	}
	return mean, 1 / math.Sqrt(sq/n+eps)
}

// normalizeTol is the tolerance of a float32 normalization (or gradient)
// of well-conditioned rows of n elements against the float64 reference:
// the row's sums carry about n/256 roundings an invocation (on lavapipe
// rows of 100000 elements, of mean 3 or 1e4, were within 7e-7).
func normalizeTol(n int) Tol { return Tol{Abs: 1e-5 + 1e-10*float64(n), Rel: 1e-4} }

// conditionSlack is how many times its estimated float32 error an element
// may be off beyond normalizeTol.
const conditionSlack = 8

// normalizeTols returns each element's tolerance for the float32
// normalization of x's rows of n elements (g nil) or their gradient with g:
// normalizeTol(n) plus the error float32 cannot avoid on a badly
// conditioned row. Rounding x and its mean, at the row's largest magnitude
// m, moves x̂ by about u·(1 + n/256)·(m·rstd + 1), and the gradient scales
// terms of size max|g|·(1 + max|x̂|) holding x̂ by rstd again: a row of
// three close values (rstd 56) puts a gradient of 0.004 1.8e-5 off.
func normalizeTols(x, g []float64, n int, eps float64) []Tol {
	const u = 0x1p-24
	base := normalizeTol(n)
	tols := make([]Tol, len(x))
	for r := 0; r < len(x); r += n {
		row := x[r : r+n]
		mean, rstd := rowMoments(row, eps)
		m := 0.0
		for _, v := range row {
			m = max(m, math.Abs(v))
		}
		slack := u * (1 + float64(n)/256) * (m*rstd + 1)
		if g != nil {
			gm, xm := 0.0, 0.0
			for j, v := range row {
				gm = max(gm, math.Abs(g[r+j]))
				xm = max(xm, math.Abs(v-mean)*rstd)
			}
			slack *= rstd * gm * (1 + xm)
		}
		tl := base
		if !math.IsNaN(slack) && !math.IsInf(slack, 0) {
			tl.Abs += conditionSlack * slack
		}
		for j := range row {
			tols[r+j] = tl
		}
	}
	return tols
}

// rowNormalizer returns d's row normalization kernels, or skips the test
// when d has none.
func rowNormalizer(t *testing.T, d device.Device) device.RowNormalizer {
	s, ok := d.(device.RowNormalizer)
	if !ok {
		t.Skipf("%s has no row normalization kernel", d.Info().Backend)
	}
	return s
}

// checkNormalize runs the normalization of x and, with g, its gradient,
// into fresh outputs at an odd offset, and checks them against the
// reference and that the elements around the outputs keep their poison.
func checkNormalize(t *testing.T, d device.Device, what string, x Tensor, g *Tensor, eps float64) {
	t.Helper()
	nz := rowNormalizer(t, d)
	n := x.View.Shape[len(x.View.Shape)-1]
	check := func(w string, out device.View, want []float64, tols []Tol) {
		t.Helper()
		all := Download(t, d, out.Buf, device.Float32, 0, out.NumElements()+2)
		CheckEach(t, w, all[1:len(all)-1], want, func(i int) Tol { return tols[i] })
		poison := float64(math.Float32frombits(0xABABABAB))
		assert.Equal(t, []float64{poison, poison}, []float64{all[0], all[len(all)-1]}, "%s: wrote outside Out", w)
	}
	out := Output(t, d, device.Float32, 1, x.View.Shape)
	require.NoError(t, nz.Normalize(&device.NormalizeKernel{In: x.View, Out: out, Eps: eps}), what)
	check(what, out, normalizeRef(x.Values, nil, n, eps), normalizeTols(x.Values, nil, n, eps))
	if g == nil {
		return
	}
	w := what + " gradient"
	out = Output(t, d, device.Float32, 1, x.View.Shape)
	require.NoError(t, nz.NormalizeBackward(&device.NormalizeBackwardKernel{X: x.View, G: g.View, Out: out, Eps: eps}), w)
	check(w, out, normalizeRef(x.Values, g.Values, n, eps), normalizeTols(x.Values, g.Values, n, eps))
}

// checkNormalizeBoth checks the normalization of x and its gradient with g
// of the same shape made with layout gl.
func checkNormalizeBoth(t *testing.T, d device.Device, rng *rand.Rand, what string, x Tensor, gl Layout, eps float64) {
	t.Helper()
	g := Make(t, d, rng, device.Float32, x.View.Shape, gl, Normal(device.Float32))
	checkNormalize(t, d, what, x, &g, eps)
}

// withRows writes vals into the contiguous x's buffer (at offset 0) and
// values.
func withRows(t *testing.T, d device.Device, x *Tensor, vals []float64) {
	t.Helper()
	require.NoError(t, d.Write(x.View.Buf, 0, Encode(device.Float32, vals)))
	x.Values = Decode(device.Float32, Encode(device.Float32, vals))
}

func testNormalize(t *testing.T, d device.Device) {
	rowNormalizer(t, d)
	rng := NewRand(t)
	f32 := device.Float32
	t.Run("Lengths", func(t *testing.T) {
		// The backward kernel keeps rows of up to 1536 elements in
		// workgroup memory, the forward up to 3072.
		for _, n := range []int{1, 2, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1000, 1535, 1536, 1537, 3071, 3072, 3073, 100000} {
			rows := max(1, min(5, 20000/n))
			x := Make(t, d, rng, f32, []int{rows, n}, Contiguous, func(r *rand.Rand) float64 { return 3 + 4*r.NormFloat64() })
			checkNormalizeBoth(t, d, rng, fmt.Sprintf("[%d %d]", rows, n), x, Contiguous, 1e-5)
		}
	})
	t.Run("Layouts", func(t *testing.T) {
		for _, shape := range [][]int{{7}, {6, 7, 33}, {3, 2, 300}, {3, 4000}, {0, 5}} {
			for i, l := range Layouts {
				x := Make(t, d, rng, f32, shape, l, Normal(f32))
				checkNormalizeBoth(t, d, rng, fmt.Sprintf("%v x %s", shape, l), x, Layouts[(i+2)%len(Layouts)], 1e-5)
			}
		}
	})
	t.Run("ManyRows", func(t *testing.T) {
		x := Make(t, d, rng, f32, []int{70000, 3}, Reversed, Normal(f32))
		checkNormalizeBoth(t, d, rng, "[70000 3] reversed", x, Strided, 1e-5)
		// More workgroups than one grid dimension holds (65535): rows of
		// one element take one invocation each, 256 to a workgroup. A NaN
		// every seventh row shows a row written in another's place.
		rows := 256*65535 + 1000
		i := 0
		x = Make(t, d, rng, f32, []int{rows, 1}, Contiguous, func(r *rand.Rand) float64 {
			i++
			if i%7 == 0 {
				return math.NaN()
			}
			return r.NormFloat64()
		})
		checkNormalize(t, d, fmt.Sprintf("[%d 1]", rows), x, nil, 0.5)
	})
	t.Run("CloseValues", func(t *testing.T) {
		// Rows of close values (rstd 56 and 315) whose gradients cancel
		// to 1e-3 of their terms: float32's error there is 1e-5, beyond
		// the plain tolerance (a CI run's random rows found the first).
		x := Make(t, d, rng, f32, []int{2, 3}, Contiguous, Normal(f32))
		withRows(t, d, &x, []float64{0.134749174118042, 0.13404852151870728, 0.09593293815851212, 1, 1.0003, 0.9996})
		g := Make(t, d, rng, f32, []int{2, 3}, Contiguous, Normal(f32))
		withRows(t, d, &g, []float64{1.6696710586547852, -1.101615071296692, -0.9545208215713501, 0.5, -0.25, 0.125})
		checkNormalize(t, d, "[2 3] close values", x, &g, 1e-5)
	})
	t.Run("Specials", func(t *testing.T) { RunNormalizeSpecials(t, d) })
	t.Run("Refusals", func(t *testing.T) {
		nz := rowNormalizer(t, d)
		x := Make(t, d, rng, f32, []int{3, 4}, Contiguous, Normal(f32))
		ints := Make(t, d, rng, device.Int32, []int{3, 4}, Contiguous, Normal(device.Int32))
		empty := Make(t, d, rng, f32, []int{3, 0}, Contiguous, Normal(f32))
		out := Output(t, d, f32, 0, []int{3, 4})
		strided := device.View{Buf: out.Buf, DType: f32, Shape: []int{3, 4}, Strides: []int{1, 3}}
		for what, k := range map[string]*device.NormalizeKernel{
			"int32 input":    {In: ints.View, Out: out},
			"empty rows":     {In: empty.View, Out: Output(t, d, f32, 0, []int{3, 0})},
			"shape mismatch": {In: x.View, Out: Output(t, d, f32, 0, []int{4, 3})},
			"strided output": {In: x.View, Out: strided},
			"negative eps":   {In: x.View, Out: out, Eps: -1},
		} {
			assert.Error(t, nz.Normalize(k), what)
		}
		for what, k := range map[string]*device.NormalizeBackwardKernel{
			"int32 gradient": {X: x.View, G: ints.View, Out: out},
			"shape mismatch": {X: x.View, G: Make(t, d, rng, f32, []int{4, 3}, Contiguous, Normal(f32)).View, Out: out},
			"strided output": {X: x.View, G: x.View, Out: strided},
		} {
			assert.Error(t, nz.NormalizeBackward(k), what)
		}
		require.NoError(t, d.Sync())
	})
}

// RunNormalizeSpecials checks the row normalization and its gradient on
// rows holding NaN or ±Inf (NaN rows), constant rows (output 0, a finite
// gradient), rows of a large mean and small spread, values near float32's
// range, and NaN or ±Inf in the gradient, kept in workgroup memory or not
// (skipped where d has no row normalization).
func RunNormalizeSpecials(t *testing.T, d device.Device) {
	rng := NewRand(t)
	f32 := device.Float32
	inf, nan := math.Inf(1), math.NaN()
	for _, n := range []int{4, 40, 300, 5000} {
		// Rows: NaN, +Inf, -Inf, constant, zero, large mean, huge values,
		// tiny values, plain.
		const rows = 9
		x := Make(t, d, rng, f32, []int{rows, n}, Contiguous, Normal(f32))
		vals := slices.Clone(x.Values)
		for j := range n {
			vals[3*n+j] = 1e4 + 0.5
			vals[4*n+j] = 0
			vals[5*n+j] = 1e4 + float64(rng.IntN(64))/128
			vals[6*n+j] = 3e38 * float64(1-2*(j%2)) * (0.5 + rng.Float64()/2)
			vals[7*n+j] = 1e-30 * rng.NormFloat64()
		}
		vals[n-1], vals[n+n/2], vals[2*n] = nan, inf, -inf
		withRows(t, d, &x, vals)
		for _, eps := range []float64{1e-5, 0} {
			w := fmt.Sprintf("[%d %d] special rows eps=%v", rows, n, eps)
			g := Make(t, d, rng, f32, []int{rows, n}, Contiguous, Normal(f32))
			if eps == 0 {
				// A constant or zero row's variance and eps of 0: NaN.
				g = Make(t, d, rng, f32, []int{rows, n}, Offset, nonFinite(Normal(f32)))
			}
			checkNormalize(t, d, w, x, &g, eps)
		}
	}
}

// testNormalizeBindings runs row normalizations whose views span more than
// the lowered binding size, which run in slabs of rows.
func testNormalizeBindings(t *testing.T, d device.Device) {
	if _, ok := d.(device.RowNormalizer); !ok {
		return
	}
	rng := NewRand(t)
	f32 := device.Float32
	for _, c := range []struct {
		shape []int
		l     Layout
	}{{[]int{300, 50}, Contiguous}, {[]int{7, 9, 40}, Offset}, {[]int{5, 400}, Strided}, {[]int{4, 1000}, Contiguous}} {
		x := Make(t, d, rng, f32, c.shape, c.l, Normal(f32))
		checkNormalizeBoth(t, d, rng, fmt.Sprintf("normalize %v %s over bindings", c.shape, c.l), x, Offset, 1e-5)
	}
}

// testNormalizeLoops checks, with the loop limit lowered to LimitLoops,
// that rows whose passes fit the loop budget run and longer ones are
// refused: with a budget of 32 iterations, the forward's four passes over
// rows of 2048 elements (8 strides of 256 each) and the gradient's five
// over rows of 1536 (6 strides).
func testNormalizeLoops(t *testing.T, d device.Device) {
	nz, ok := d.(device.RowNormalizer)
	if !ok {
		return
	}
	rng := NewRand(t)
	f32 := device.Float32
	checkNormalize(t, d, "normalize [2 2048] under the lowered loop limit", Make(t, d, rng, f32, []int{2, 2048}, Contiguous, Normal(f32)), nil, 1e-5)
	checkNormalizeBoth(t, d, rng, "normalize [2 1536] under the lowered loop limit", Make(t, d, rng, f32, []int{2, 1536}, Contiguous, Normal(f32)), Contiguous, 1e-5)
	x := Make(t, d, rng, f32, []int{1, 2049}, Contiguous, Normal(f32))
	err := nz.Normalize(&device.NormalizeKernel{In: x.View, Out: Output(t, d, f32, 0, []int{1, 2049})})
	require.Error(t, err, "a row over the loop budget")
	assert.Contains(t, err.Error(), "loop iterations")
	x = Make(t, d, rng, f32, []int{1, 1537}, Contiguous, Normal(f32))
	err = nz.NormalizeBackward(&device.NormalizeBackwardKernel{X: x.View, G: x.View, Out: Output(t, d, f32, 0, []int{1, 1537})})
	require.Error(t, err, "a gradient row over the loop budget")
	assert.Contains(t, err.Error(), "loop iterations")
}
