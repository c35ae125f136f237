//go:build cgo && linux

package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// nmRowKinds are the rows the normalization tests draw: plain rows use the
// first, special rows all of them.
var nmRowKinds = []string{"normal", "large mean", "constant", "NaN", "+Inf", "-Inf", "huge", "tiny"}

// nmRow fills a row of cols values of kind through set: a large mean is
// 1e4 with a spread of 1/128 steps, huge values alternate in sign near
// float32's largest, tiny ones are about 1e-30.
func nmRow(rng *rand.Rand, kind string, cols int, set func(c int, v float64)) {
	for c := range cols {
		v := rng.NormFloat64()
		switch kind {
		case "large mean":
			v = 1e4 + float64(rng.IntN(64))/128
		case "constant":
			v = 0.1
		case "huge":
			v = 3e38 * float64(1-2*(c%2)) * (0.5 + rng.Float64()/2)
		case "tiny":
			v = 1e-30 * v
		}
		set(c, v)
	}
	switch kind {
	case "NaN":
		set(rng.IntN(cols), math.NaN())
	case "+Inf":
		set(rng.IntN(cols), math.Inf(1))
	case "-Inf":
		set(rng.IntN(cols), math.Inf(-1))
	}
}

// nmMoments returns a row's float64 mean and 1/sqrt(var+eps), and whether
// it holds NaN or ±Inf.
func nmMoments(row []float64, eps float64) (mean, rstd float64, bad bool) {
	for _, x := range row {
		bad = bad || math.IsNaN(x) || math.IsInf(x, 0)
		mean += x
	}
	mean /= float64(len(row))
	q := 0.0
	for _, x := range row {
		q += (x - mean) * (x - mean)
	}
	return mean, 1 / math.Sqrt(q/float64(len(row))+eps), bad
}

// nmReference is the float64 normalization of each row of vals (rows of
// cols values); a row holding NaN or ±Inf is NaN.
func nmReference(vals []float64, cols int, eps float64) []float64 {
	out := make([]float64, len(vals))
	for r := 0; r < len(vals); r += cols {
		mean, rstd, bad := nmMoments(vals[r:r+cols], eps)
		for c := range cols {
			out[r+c] = (vals[r+c] - mean) * rstd
			if bad {
				out[r+c] = math.NaN()
			}
		}
	}
	return out
}

// nmBackwardReference is the float64 gradient rstd·(g − mean(g) −
// x̂·mean(g·x̂)) of each row.
func nmBackwardReference(x, g []float64, cols int, eps float64) []float64 {
	out := make([]float64, len(x))
	xh := nmReference(x, cols, eps)
	for r := 0; r < len(x); r += cols {
		_, rstd, _ := nmMoments(x[r:r+cols], eps)
		mg, mgx := 0.0, 0.0
		for c := range cols {
			mg += g[r+c]
			mgx += g[r+c] * xh[r+c]
		}
		mg /= float64(cols)
		mgx /= float64(cols)
		for c := range cols {
			out[r+c] = rstd * (g[r+c] - mg - xh[r+c]*mgx)
		}
	}
	return out
}

// nmTol is the tolerance for rows of cols elements: float32 sums, whose
// error grows with the row.
func nmTol(cols int) gputest.Tol {
	return gputest.Tol{Abs: 1e-5 + 1e-9*float64(cols), Rel: 1e-4}
}

// nmCase runs the normalization of X (shape, layout lx) and its gradient
// with G (layout lg) on d, rows of X drawn from kinds, and checks both
// against the float64 references.
func nmCase(t *testing.T, d device.Device, rng *rand.Rand, shape []int, lx, lg smLayout, kinds []string, eps float64) {
	t.Helper()
	n, cols := device.NumElements(shape), shape[len(shape)-1]
	var vals [2][]float64
	var views [2]device.View
	for i, l := range []smLayout{lx, lg} {
		store := make([]float64, l.size)
		for j := range store {
			store[j] = float64(float32(rng.NormFloat64()))
		}
		views[i] = device.View{DType: device.Float32, Shape: shape, Strides: l.strides, Offset: l.offset}
		if i == 0 {
			for r := 0; r < n/cols; r++ {
				nmRow(rng, kinds[r%len(kinds)], cols, func(c int, v float64) { store[views[i].Index(r*cols+c)] = float64(float32(v)) })
			}
		}
		// Broadcast rows share elements: the reference reads what the
		// last row wrote, as the kernel does.
		vals[i] = make([]float64, n)
		for p := range vals[i] {
			vals[i][p] = store[views[i].Index(p)]
		}
		views[i].Buf = gputest.Upload(t, d, device.Float32, store)
	}
	what := fmt.Sprintf("%v, X %s, G %s, rows %v, eps %v", shape, lx.name, lg.name, kinds, eps)
	out := gputest.Output(t, d, device.Float32, 1, shape)
	require.NoError(t, d.(device.RowNormalizer).Normalize(&device.NormalizeKernel{In: views[0], Out: out, Eps: eps}))
	gputest.Check(t, "normalize of "+what, gputest.Fetch(t, d, out), nmReference(vals[0], cols, eps), nmTol(cols))
	k := &device.NormalizeBackwardKernel{X: views[0], G: views[1], Out: out, Eps: eps}
	require.NoError(t, d.(device.RowNormalizer).NormalizeBackward(k))
	gputest.Check(t, "normalize backward of "+what, gputest.Fetch(t, d, out), nmBackwardReference(vals[0], vals[1], cols, eps), nmTol(cols))
}

// normalizeCases runs the normalization kernels on d against the float64
// references: rows of many lengths (each path: a thread, part of a warp, a
// warp, blocks of 256, 512 and 1024 threads from registers, a block
// reading the row again a pass), the layouts of smLayouts for X and G,
// row dimensions that do not merge, plain and special rows.
func normalizeCases(t *testing.T, d device.Device) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, cols := range []int{1, 2, 31, 32, 33, 127, 128, 129, 512, 513, 1000, 4097, 16385, 100000} {
		rows := max(2, min(20, 20000/cols))
		for _, shape := range [][]int{{rows, cols}, {2, 3, cols}} {
			if cols > 129 && len(shape) == 3 {
				continue
			}
			ls := smLayouts(shape)
			for i, l := range ls {
				if i < 2 || cols <= 129 || cols == 100000 {
					nmCase(t, d, rng, shape, l, ls[(i+1)%len(ls)], nmRowKinds[:1], 1e-5)
				}
			}
		}
		shape := []int{max(rows, len(nmRowKinds)), min(cols, 16385)}
		ls := smLayouts(shape)
		nmCase(t, d, rng, shape, ls[0], ls[0], nmRowKinds, 1e-5)
		nmCase(t, d, rng, shape, ls[1], ls[0], nmRowKinds[:2], 0)
	}
	shape := []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 5}
	strides := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = acc
		acc = acc*shape[i] + 1
	}
	gapped := smLayout{"gapped", strides, 4, 4 + acc}
	nmCase(t, d, rng, shape, gapped, smLayouts(shape)[0], nmRowKinds, 1e-3)
}

// TestNormalizeKernel runs normalizeCases through the test double, then
// rows of each path with the grid capped at three blocks (the grid-stride
// loop over row groups) and the kernels' refusals.
func TestNormalizeKernel(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<22)
	normalizeCases(t, d)
	rng := rand.New(rand.NewPCG(2, 4))
	withCappedGrid(t, f, d, "sf_normalize", func(shape []int, ls []smLayout) {
		nmCase(t, d, rng, shape, ls[1], ls[0], nmRowKinds, 1e-5)
	})

	x := gputest.Upload(t, d, device.Float32, make([]float64, 8))
	out := gputest.Output(t, d, device.Float32, 0, []int{2, 4})
	xv := device.Contiguous(x, device.Float32, 0, []int{2, 4})
	require.ErrorContains(t, d.Normalize(&device.NormalizeKernel{In: device.Contiguous(x, device.Float32, 0, []int{2, 0}), Out: out}), "normalize")
	require.ErrorContains(t, d.Normalize(&device.NormalizeKernel{In: xv, Out: out, Eps: -1}), "normalize")
	other := f.open(t, 1<<16)
	err := other.Normalize(&device.NormalizeKernel{In: xv, Out: gputest.Output(t, other, device.Float32, 0, []int{2, 4})})
	require.ErrorContains(t, err, "normalize: In")
	err = other.NormalizeBackward(&device.NormalizeBackwardKernel{X: gputest.Output(t, other, device.Float32, 0, []int{2, 4}),
		G: xv, Out: gputest.Output(t, other, device.Float32, 0, []int{2, 4})})
	require.ErrorContains(t, err, "normalize backward: G")
	require.ErrorContains(t, d.NormalizeBackward(&device.NormalizeBackwardKernel{}), "normalize backward")
	empty := gputest.Output(t, d, device.Float32, 0, []int{0, 4})
	require.NoError(t, d.Normalize(&device.NormalizeKernel{In: empty, Out: empty}))
	require.NoError(t, d.NormalizeBackward(&device.NormalizeBackwardKernel{X: empty, G: empty, Out: empty}))
}

// TestHardwareNormalize runs normalizeCases on CUDA device 0 of the
// machine's real driver, skipping as TestHardwareKernels does.
func TestHardwareNormalize(t *testing.T) {
	normalizeCases(t, gputest.Open(t, "cuda"))
}
