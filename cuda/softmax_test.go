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

// smTol is the softmax kernel's tolerance against the float64 reference:
// the absolute part lies below float32's smallest normal number (so
// results that underflow pass, and the poison, about -1.2e-12, fails).
var smTol = gputest.Tol{Abs: 1e-38, Rel: 2e-5}

// smLogTol is the log-softmax's: x-m and log(s) each round to float32.
var smLogTol = gputest.Tol{Abs: 2e-6, Rel: 2e-6}

// smRowKinds are the rows the tests draw: plain rows use the first two,
// special rows all of them.
var smRowKinds = []string{"normal", "large", "-Inf", "all -Inf", "NaN", "+Inf", "+Inf and -Inf"}

// smRow fills row (cols values, addressed through at) with values of kind.
// Large values (around 1000, spread by 50) overflow float32's exp unless
// the row maximum is subtracted first.
func smRow(rng *rand.Rand, kind string, cols int, set func(c int, v float64)) {
	for c := range cols {
		v := rng.NormFloat64()
		switch kind {
		case "large":
			v = 1000 + 50*v
		case "-Inf":
			if rng.IntN(5) == 0 {
				v = math.Inf(-1)
			}
		case "all -Inf":
			v = math.Inf(-1)
		}
		set(c, v)
	}
	switch kind {
	case "NaN":
		set(rng.IntN(cols), math.NaN())
	case "+Inf":
		set(rng.IntN(cols), math.Inf(1))
	case "+Inf and -Inf":
		set(rng.IntN(cols), math.Inf(-1))
		set(rng.IntN(cols), math.Inf(1))
	}
}

// smReference is the float64 softmax (or log-softmax) of each row of
// vals (rows of cols values) with PyTorch's rules for NaN and infinities.
func smReference(vals []float64, cols int, log bool) []float64 {
	out := make([]float64, len(vals))
	for r := 0; r < len(vals); r += cols {
		row, m := vals[r:r+cols], math.Inf(-1)
		bad := false
		for _, x := range row {
			bad = bad || math.IsNaN(x) || math.IsInf(x, 1)
			m = math.Max(m, x)
		}
		bad = bad || math.IsInf(m, -1)
		s := 0.0
		for _, x := range row {
			s += math.Exp(x - m)
		}
		for c, x := range row {
			switch {
			case bad:
				out[r+c] = math.NaN()
			case log:
				out[r+c] = (x - m) - math.Log(s)
			default:
				out[r+c] = math.Exp(x-m) / s
			}
		}
	}
	return out
}

// smLayout is how a softmax input of shape lies in its buffer: strides
// and offset, with the buffer's length.
type smLayout struct {
	name    string
	strides []int
	offset  int
	size    int
}

// smLayouts returns the layouts the tests run shape in: contiguous at an
// offset, transposed (the row dimensions innermost), the row dimensions
// broadcast (stride 0), the last dimension broadcast, and the last
// dimension reversed (a negative stride).
func smLayouts(shape []int) []smLayout {
	n, last := device.NumElements(shape), len(shape)-1
	rows, cols := n/shape[last], shape[last]
	contig := device.ContiguousStrides(shape)
	trans := make([]int, len(shape))
	trans[last] = rows
	for i, acc := last-1, 1; i >= 0; i-- {
		trans[i] = acc
		acc *= shape[i]
	}
	bcastRows := make([]int, len(shape))
	bcastRows[last] = 1
	bcastCols := append([]int(nil), contig...)
	for i := range bcastCols {
		bcastCols[i] /= cols
	}
	bcastCols[last] = 0
	rev := append([]int(nil), contig...)
	rev[last] = -1
	return []smLayout{
		{"contiguous", contig, 3, 3 + n},
		{"transposed", trans, 0, n},
		{"broadcast rows", bcastRows, 1, 1 + cols},
		{"broadcast columns", bcastCols, 2, 2 + rows},
		{"reversed columns", rev, cols - 1, n},
	}
}

// smCase runs one softmax of In (shape, layout l) on d, rows drawn from
// kinds, both with and without Log, and checks Out against the reference.
func smCase(t *testing.T, d device.Device, rng *rand.Rand, shape []int, l smLayout, kinds []string) {
	t.Helper()
	n, last := device.NumElements(shape), len(shape)-1
	cols := shape[last]
	store := make([]float64, l.size)
	for i := range store {
		store[i] = rng.NormFloat64()
	}
	in := device.View{DType: device.Float32, Shape: shape, Strides: l.strides, Offset: l.offset}
	for r := 0; r < n/cols; r++ {
		kind := kinds[r%len(kinds)]
		smRow(rng, kind, cols, func(c int, v float64) { store[in.Index(r*cols+c)] = float64(float32(v)) })
	}
	// Broadcast rows share elements: the reference reads what the last
	// row wrote, as the kernel does.
	vals := make([]float64, n)
	for p := range vals {
		vals[p] = store[in.Index(p)]
	}
	in.Buf = gputest.Upload(t, d, device.Float32, store)
	for _, log := range []bool{false, true} {
		out := gputest.Output(t, d, device.Float32, 1, shape)
		require.NoError(t, d.(device.RowSoftmaxer).Softmax(&device.SoftmaxKernel{In: in, Out: out, Log: log}))
		tol := smTol
		if log {
			tol = smLogTol
		}
		what := fmt.Sprintf("softmax (log %v) of %v, %s (strides %v, offset %d), rows %v", log, shape, l.name, l.strides, l.offset, kinds)
		gputest.Check(t, what, gputest.Fetch(t, d, out), smReference(vals, cols, log), tol)
	}
}

// smBackwardReference is the float64 gradient of each row of a softmax
// (y*(g - sum(g*y))) or log-softmax (g - exp(y)*sum(g)).
func smBackwardReference(y, g []float64, cols int, log bool) []float64 {
	out := make([]float64, len(y))
	for r := 0; r < len(y); r += cols {
		s := 0.0
		for c := range cols {
			if log {
				s += g[r+c]
			} else {
				s += g[r+c] * y[r+c]
			}
		}
		for c := range cols {
			if log {
				out[r+c] = g[r+c] - math.Exp(y[r+c])*s
			} else {
				out[r+c] = y[r+c] * (g[r+c] - s)
			}
		}
	}
	return out
}

// smBackwardCase runs the softmax gradient of Y (layout ly) and G (layout
// lg) of shape on d, both with and without Log, and checks Out against the
// reference. Y holds probabilities (or their logarithms); every third row
// of G holds a NaN, which makes the row NaN, when specials is set.
func smBackwardCase(t *testing.T, d device.Device, rng *rand.Rand, shape []int, ly, lg smLayout, specials bool) {
	t.Helper()
	n, cols := device.NumElements(shape), shape[len(shape)-1]
	for _, log := range []bool{false, true} {
		var vals [2][]float64
		var views [2]device.View
		for i, l := range []smLayout{ly, lg} {
			store := make([]float64, l.size)
			for j := range store {
				v := rng.Float64()
				if log {
					v = math.Log(v)
				}
				if i == 1 {
					v = rng.NormFloat64()
				}
				store[j] = float64(float32(v))
			}
			views[i] = device.View{DType: device.Float32, Shape: shape, Strides: l.strides, Offset: l.offset}
			if i == 1 && specials {
				for r := 0; r < n/cols; r += 3 {
					store[views[i].Index(r*cols+rng.IntN(cols))] = math.NaN()
				}
			}
			vals[i] = make([]float64, n)
			for p := range vals[i] {
				vals[i][p] = store[views[i].Index(p)]
			}
			views[i].Buf = gputest.Upload(t, d, device.Float32, store)
		}
		out := gputest.Output(t, d, device.Float32, 1, shape)
		k := &device.SoftmaxBackwardKernel{Y: views[0], G: views[1], Out: out, Log: log}
		require.NoError(t, d.(device.RowSoftmaxGrader).SoftmaxBackward(k))
		what := fmt.Sprintf("softmax backward (log %v) of %v, Y %s, G %s, specials %v", log, shape, ly.name, lg.name, specials)
		gputest.Check(t, what, gputest.Fetch(t, d, out), smBackwardReference(vals[0], vals[1], cols, log), smGradTol(cols))
	}
}

// smGradTol is the gradient's tolerance for rows of cols elements: the sum
// is float32's, its error growing with the row.
func smGradTol(cols int) gputest.Tol {
	return gputest.Tol{Abs: 1e-6 * math.Sqrt(float64(cols)), Rel: 1e-5}
}

// softmaxCases runs the softmax kernels on d against the float64
// references: rows of many lengths (each of the kernels' paths: part of a
// warp, a warp, blocks of 256, 512 and 1024 threads from registers, a
// block reading the row twice), few and many rows, every layout of
// smLayouts, row dimensions that do not merge, plain and special rows.
func softmaxCases(t *testing.T, d device.Device) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, cols := range []int{1, 2, 3, 4, 5, 31, 32, 33, 127, 128, 129, 512, 513, 1000, 4096, 4097, 8192, 16384, 16385, 100000} {
		// Many rows where a block serves many (the double runs a block's
		// threads as coroutines that switch at every shuffle: it is slow).
		rows := 300
		switch {
		case cols > 4096:
			rows = 2
		case cols > 128:
			rows = 7
		case cols > 5:
			rows = 20
		}
		// Every layout on short rows and the longest; the others, whose
		// addressing is the same code, contiguous and transposed (the
		// double is slow).
		for _, shape := range [][]int{{rows, cols}, {2, 3, cols}} {
			if cols > 129 && len(shape) == 3 {
				continue
			}
			for i, l := range smLayouts(shape) {
				if i < 2 || cols <= 129 || cols == 100000 {
					smCase(t, d, rng, shape, l, smRowKinds[:2])
				}
			}
		}
		// Every kind of special row, at least once (rows of 100000 take
		// the path of 16385).
		shape := []int{max(rows, len(smRowKinds)), min(cols, 16385)}
		smCase(t, d, rng, shape, smLayouts(shape)[0], smRowKinds)
	}
	// Ten row dimensions that cannot merge (more than a launch holds: each
	// skips an element), and dimensions of size one.
	shape := []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 5}
	strides := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = acc
		acc = acc*shape[i] + 1
	}
	gapped := smLayout{"gapped", strides, 4, 4 + acc}
	smCase(t, d, rng, shape, gapped, smRowKinds)
	smCase(t, d, rng, []int{1, 1, 7}, smLayouts([]int{1, 1, 7})[0], smRowKinds[:1])

	for _, cols := range []int{1, 3, 5, 33, 513, 4097, 16385, 100000} {
		rows := max(2, min(40, 20000/cols))
		shape := []int{rows, cols}
		ls := smLayouts(shape)
		smBackwardCase(t, d, rng, shape, ls[0], ls[0], true)
		if cols < 100000 {
			smBackwardCase(t, d, rng, shape, ls[1], ls[4], false)
		}
		if cols < 513 || cols == 16385 {
			smBackwardCase(t, d, rng, shape, ls[2], ls[3], false)
		}
	}
	contig := smLayout{"contiguous", device.ContiguousStrides(shape), 0, device.NumElements(shape)}
	smBackwardCase(t, d, rng, shape, gapped, contig, true)
}

// withCappedGrid runs check on a shape with rows of each path's length
// (from a thread to a block a row) that needs more than three blocks, with
// the grid capped at three so that the row kernels loop over row groups,
// and requires that kernel and its _backward ran on the capped grid.
func withCappedGrid(t *testing.T, f *fake, d *Device, kernel string, check func(shape []int, ls []smLayout)) {
	t.Helper()
	limit := d.info.Limits.MaxWorkgroups[0]
	d.info.Limits.MaxWorkgroups[0] = 3
	defer func() { d.info.Limits.MaxWorkgroups[0] = limit }()
	for _, cols := range []int{5, 40, 700, 5000, 17000} {
		w := smThreadsPerRow(cols)
		shape := []int{3*max(smThreads, w)/w + 2, cols}
		check(shape, smLayouts(shape))
	}
	require.Positive(t, f.count(t, "cuLaunchKernel "+kernel+" grid=3 "), "the capped grid was used")
	require.Positive(t, f.count(t, "cuLaunchKernel "+kernel+"_backward grid=3 "), "the capped grid was used")
}

// TestSoftmaxKernel runs softmaxCases through the test double, then rows
// of each path with the grid capped at three blocks (the grid-stride loop
// over row groups) and the kernels' refusals.
func TestSoftmaxKernel(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<22)
	softmaxCases(t, d)
	rng := rand.New(rand.NewPCG(9, 1))
	withCappedGrid(t, f, d, "sf_softmax", func(shape []int, ls []smLayout) {
		smCase(t, d, rng, shape, ls[0], smRowKinds)
		smBackwardCase(t, d, rng, shape, ls[1], ls[0], true)
	})

	x := gputest.Upload(t, d, device.Float32, make([]float64, 8))
	out := gputest.Output(t, d, device.Float32, 0, []int{2, 4})
	err := d.Softmax(&device.SoftmaxKernel{In: device.Contiguous(x, device.Float32, 0, []int{2, 0}), Out: out})
	require.ErrorContains(t, err, "softmax")
	other := f.open(t, 1<<16)
	err = other.Softmax(&device.SoftmaxKernel{In: device.Contiguous(x, device.Float32, 0, []int{2, 4}),
		Out: gputest.Output(t, other, device.Float32, 0, []int{2, 4})})
	require.ErrorContains(t, err, "softmax: In")
	err = other.SoftmaxBackward(&device.SoftmaxBackwardKernel{Y: gputest.Output(t, other, device.Float32, 0, []int{2, 4}),
		G: device.Contiguous(x, device.Float32, 0, []int{2, 4}), Out: gputest.Output(t, other, device.Float32, 0, []int{2, 4})})
	require.ErrorContains(t, err, "softmax backward: G")
	require.ErrorContains(t, d.SoftmaxBackward(&device.SoftmaxBackwardKernel{}), "softmax backward")
	empty := gputest.Output(t, d, device.Float32, 0, []int{0, 4})
	require.NoError(t, d.Softmax(&device.SoftmaxKernel{In: empty, Out: empty}))
	require.NoError(t, d.SoftmaxBackward(&device.SoftmaxBackwardKernel{Y: empty, G: empty, Out: empty}))
}

// TestHardwareSoftmax runs softmaxCases on CUDA device 0 of the machine's
// real driver, skipping as TestHardwareKernels does.
func TestHardwareSoftmax(t *testing.T) {
	softmaxCases(t, gputest.Open(t, "cuda"))
}
