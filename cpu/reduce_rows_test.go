package cpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// TestSumOverOuterAxes checks sums whose outputs are the input's inner axes
// (bias gradients), which are reduced row by row, against float64 sums: odd
// row widths, several reduced axes, an offset, serial, by-row and by-output
// splits, and layouts where the path does not apply.
func TestSumOverOuterAxes(t *testing.T) {
	r := newRand(t)
	cases := []struct {
		out, red []int
		perm     []int // physical layout of out ++ red
		rows     bool  // whether the row-by-row path applies
	}{
		{[]int{128}, []int{64}, []int{1, 0}, true},             // [64,128] summed over the batch
		{[]int{17}, []int{5}, []int{1, 0}, true},               // odd width, fewer rows than a fold
		{[]int{33}, []int{3, 7}, []int{1, 2, 0}, true},         // two reduced axes
		{[]int{4, 40}, []int{9}, []int{2, 0, 1}, true},         // two output axes, innermost unit
		{[]int{300}, []int{1001}, []int{1, 0}, true},           // large: parallel rows
		{[]int{2500}, []int{3}, []int{1, 0}, true},             // rows longer than a chunk
		{[]int{128}, []int{64}, []int{0, 1}, false},            // already contiguous per output
		{[]int{8}, []int{64}, []int{1, 0}, false},              // too narrow
		{[]int{64, 3}, []int{2, 11}, []int{2, 3, 0, 1}, true},  // two output axes laid out as one row of 64·3
		{[]int{64, 3}, []int{2, 11}, []int{2, 3, 1, 0}, false}, // innermost output axis not unit stride
		{[]int{32, 7, 7}, []int{16}, []int{3, 0, 1, 2}, true},  // images summed over the batch: rows of 32·7·7
		{[]int{4, 6}, []int{8}, []int{2, 0, 1}, true},          // short inner axis, contiguous with the next
		{[]int{20, 6}, []int{4}, []int{0, 2, 1}, false},        // short inner axis, the next one apart
		{[]int{5, 3, 14}, []int{14}, []int{0, 1, 3, 2}, true},  // runs of 14 outputs: a sum over the height of 14×14 images
		{[]int{20000}, []int{7}, []int{1, 0}, true},            // few rows: split by outputs
		{[]int{40, 700}, []int{3, 5}, []int{2, 3, 0, 1}, true}, // few rows over two axes: split by outputs
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2, 3} {
			name := fmt.Sprintf("out%v red%v perm%v workers%d", c.out, c.red, c.perm, workers)
			d := newDevice(t, workers)
			in, vals := strided(t, d, r, device.Float32, append(append([]int{}, c.out...), c.red...), c.perm, 3)
			o, n := device.NumElements(c.out), device.NumElements(c.red)
			k := &device.ReduceKernel{Op: device.ReduceSum, OutShape: c.out, RedShape: c.red, Inputs: []device.View{in}}
			require.Equal(t, c.rows, reducesRows(k, o), name)
			got := runReduce(t, d, device.ReduceSum, in, c.out, c.red)
			requireClose(t, refOf(device.ReduceSum, vals, in, o, n), got, 1e-5, 1e-5, name)
		}
	}
}

// TestExtremesOverOuterAxes checks maxima and minima and their positions
// over outer axes (a softmax's maximum over channels, a segmentation's class
// per pixel), folded row by row, against the first-element reference: NaNs in the first, a middle and the last row,
// ties of -0 and +0 across the rows (the first zero's sign must win, also
// when the zeros fall in different parallel tasks), infinities, odd widths
// and serial and parallel row splits.
func TestExtremesOverOuterAxes(t *testing.T) {
	r := newRand(t)
	cases := []struct{ out, red, perm []int }{
		{[]int{128}, []int{64}, []int{1, 0}},
		{[]int{17}, []int{5}, []int{1, 0}},
		{[]int{33}, []int{3, 7}, []int{1, 2, 0}},
		{[]int{4, 40}, []int{9}, []int{2, 0, 1}},
		{[]int{300}, []int{1001}, []int{1, 0}},
		{[]int{2500}, []int{3}, []int{1, 0}},
		{[]int{32, 7, 7}, []int{16}, []int{3, 0, 1, 2}},
		{[]int{8, 256}, []int{128}, []int{0, 2, 1}},     // a softmax's maximum over the middle axis
		{[]int{20000}, []int{5}, []int{1, 0}},           // few rows: split by outputs
		{[]int{5, 3, 14}, []int{14}, []int{0, 1, 3, 2}}, // runs of 14 outputs
		{[]int{64, 100}, []int{3}, []int{2, 0, 1}},      // few rows, serial or split by outputs
	}
	for _, c := range cases {
		for _, op := range []device.ReduceOp{device.ReduceMax, device.ReduceMin, device.ReduceArgMax, device.ReduceArgMin} {
			for _, workers := range []int{1, 2, 3} {
				name := fmt.Sprintf("%v out%v red%v perm%v workers%d", op, c.out, c.red, c.perm, workers)
				d := newDevice(t, workers)
				in, vals := strided(t, d, r, device.Float32, append(append([]int{}, c.out...), c.red...), c.perm, 3)
				o, n := device.NumElements(c.out), device.NumElements(c.red)
				sign := 1.0 // the zeros are the extremes: every other value lies beyond them
				if op == device.ReduceMax || op == device.ReduceArgMax {
					sign = -1
				}
				for i := range o {
					set := func(j int, v float64) { vals[in.Index(i*n+j)] = v }
					switch i % 6 {
					case 1:
						set([]int{0, n / 2, n - 1}[i/6%3], math.NaN())
					case 2, 3:
						for j := range n {
							set(j, sign*(1+float64(j)))
						}
						first, later := math.Copysign(0, float64(i%2*2-1)), math.Copysign(0, float64(1-i%2*2))
						set(0, first)
						set(n-1, later)
						set(n/2, later)
					case 4:
						for j := range n {
							set(j, math.Inf(int(sign)))
						}
					case 5:
						set(n-1, math.Inf(int(-sign)))
					}
				}
				in.Buf = upload(t, d, device.Float32, vals)
				k := &device.ReduceKernel{Op: op, OutShape: c.out, RedShape: c.red, Inputs: []device.View{in}}
				require.True(t, reducesRows(k, o), name)
				got := runReduce(t, d, op, in, c.out, c.red)
				want := refOf(op, vals, in, o, n)
				requireClose(t, want, got, 0, 0, name)
				for i := range want {
					if math.Signbit(want[i]) != math.Signbit(got[i]) {
						require.Equal(t, math.Signbit(want[i]), math.Signbit(got[i]), "%s: output %d: want %v, got %v", name, i, want[i], got[i])
					}
				}
			}
		}
	}
}

// TestSumOverOuterAxesWithPrologue reduces a fused prologue x*y+x row by row
// and checks that a position-dependent prologue (OpIndex) keeps the
// per-output order.
func TestSumOverOuterAxesWithPrologue(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 2)
	out, red := []int{70}, []int{50}
	shape := []int{70, 50}
	x, xv := strided(t, d, r, device.Float32, shape, []int{1, 0}, 0)
	y, yv := strided(t, d, r, device.Float32, shape, []int{1, 0}, 5)
	var b device.Builder
	xr, yr := b.Input(0, device.Float32), b.Input(1, device.Float32)
	b.Output(b.Binary(device.OpAdd, b.Binary(device.OpMul, xr, yr), xr))
	res := device.Contiguous(poisoned(t, d, device.Float32, 70), device.Float32, 0, out)
	k := &device.ReduceKernel{Op: device.ReduceSum, OutShape: out, RedShape: red, Inputs: []device.View{x, y},
		Prologue: b.P, Epilogue: device.Identity(device.Float32), Outputs: []device.View{res}}
	require.True(t, reducesRows(k, 70))
	require.NoError(t, d.Reduce(k))
	want := make([]float64, 70)
	for i := range want {
		for j := range 50 {
			p := i*50 + j
			xf, yf := float64(float32(at(xv, x, p))), float64(float32(at(yv, y, p)))
			want[i] += float64(float32(xf*yf)) + xf
		}
	}
	requireClose(t, want, download(t, d, res.Buf, device.Float32, 70), 1e-5, 1e-5, "x*y+x")

	var bi device.Builder
	bi.Output(bi.Binary(device.OpAdd, bi.Input(0, device.Float32), bi.Cast(bi.Index(), device.Float32)))
	k.Prologue = bi.P
	k.Inputs = k.Inputs[:1]
	require.False(t, reducesRows(k, 70), "an OpIndex prologue depends on the position order")
	require.NoError(t, d.Reduce(k))
	for i := range want {
		want[i] = 0
		for j := range 50 {
			p := i*50 + j
			want[i] += float64(float32(at(xv, x, p))) + float64(p)
		}
	}
	requireClose(t, want, download(t, d, res.Buf, device.Float32, 70), 1e-5, 1e-5, "x+index")
}

// BenchmarkSumOverBatch is a bias gradient: [64, 128] summed over the batch
// (SHADERFLOW_CPU_ROWS=0 would be the per-output order; compare with
// BenchmarkSumOverBatchPerOutput).
func BenchmarkSumOverBatch(b *testing.B) {
	benchSumOverBatch(b, []int{1, 0})
}

// BenchmarkSumOverBatchPerOutput reduces the same [64, 128] sums from a
// layout that keeps each output's 64 elements contiguous: the per-output
// order at its best, for comparison.
func BenchmarkSumOverBatchPerOutput(b *testing.B) {
	benchSumOverBatch(b, []int{0, 1})
}

func benchSumOverBatch(b *testing.B, perm []int) {
	r := newRand(b)
	d := New(Config{Workers: 1, Synchronous: true})
	b.Cleanup(func() { _ = d.Close() })
	in, _ := strided(b, d, r, device.Float32, []int{128, 64}, perm, 0)
	res := device.Contiguous(poisoned(b, d, device.Float32, 128), device.Float32, 0, []int{128})
	k := &device.ReduceKernel{Op: device.ReduceSum, OutShape: []int{128}, RedShape: []int{64}, Inputs: []device.View{in},
		Prologue: device.Identity(device.Float32), Epilogue: device.Identity(device.Float32), Outputs: []device.View{res}}
	cpu0 := processCPU()
	for b.Loop() {
		if err := d.Reduce(k); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// TestSumOverOuterAxesIsDeterministic sums rows whose partial sums depend
// on their grouping (2^53, 1 and -2^53 a third of the rows apart, in
// different row tasks) many times on three workers: the result must not
// depend on which worker ran which task.
func TestSumOverOuterAxesIsDeterministic(t *testing.T) {
	d := newDevice(t, 3)
	const o, r = 128, 1024
	vals := make([]float64, o*r)
	for c := range o {
		vals[c], vals[r/3*o+c], vals[2*r/3*o+c] = 1<<53, 1, -(1 << 53)
	}
	in := device.View{Buf: upload(t, d, device.Float32, vals), DType: device.Float32, Shape: []int{o, r}, Strides: []int{1, o}}
	k := &device.ReduceKernel{Op: device.ReduceSum, OutShape: []int{o}, RedShape: []int{r}, Inputs: []device.View{in}}
	require.True(t, reducesRows(k, o))
	first := runReduce(t, d, device.ReduceSum, in, []int{o}, []int{r})
	for range 200 {
		require.Equal(t, first, runReduce(t, d, device.ReduceSum, in, []int{o}, []int{r}))
	}
}
