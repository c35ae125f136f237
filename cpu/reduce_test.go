package cpu

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// refReduce reduces the float64 values of each output's sub-space like the
// kernel should: sum, prod, NaN-propagating max/min, first-index argmax/argmin
// with NaN counting as extreme.
func refReduce(op device.ReduceOp, x []float64) float64 {
	switch op {
	case device.ReduceSum:
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s
	case device.ReduceProd:
		s := 1.0
		for _, v := range x {
			s *= v
		}
		return s
	}
	best, bi := x[0], 0
	for i, v := range x {
		if math.IsNaN(best) {
			break
		}
		isMax := op == device.ReduceMax || op == device.ReduceArgMax
		if math.IsNaN(v) || (isMax && v > best) || (!isMax && v < best) {
			best, bi = v, i
		}
	}
	if op == device.ReduceArgMax || op == device.ReduceArgMin {
		return float64(bi)
	}
	return best
}

// runReduce reduces view in (shape out ++ red) with an identity prologue and
// epilogue and returns the results as float64.
func runReduce(t *testing.T, d *Device, op device.ReduceOp, in device.View, out, red []int) []float64 {
	t.Helper()
	dt := device.Float32
	if op == device.ReduceArgMax || op == device.ReduceArgMin {
		dt = device.Int32
	}
	o := device.NumElements(out)
	res := device.Contiguous(poisoned(t, d, dt, o), dt, 0, out)
	k := &device.ReduceKernel{Op: op, OutShape: out, RedShape: red, Inputs: []device.View{in},
		Prologue: device.Identity(device.Float32), Epilogue: device.Identity(dt), Outputs: []device.View{res}}
	require.NoError(t, d.Reduce(k), op)
	return download(t, d, res.Buf, dt, o)
}

// refOf computes the reference for every output of a view over out ++ red.
func refOf(op device.ReduceOp, vals []float64, in device.View, o, r int) []float64 {
	want := make([]float64, o)
	row := make([]float64, r)
	for i := range want {
		for j := range row {
			row[j] = float64(float32(at(vals, in, i*r+j)))
		}
		want[i] = refReduce(op, row)
	}
	return want
}

func TestReduceOpsOnStridedViewsWithNaN(t *testing.T) {
	r := newRand(t)
	for _, workers := range []int{1, 3} {
		d := newDevice(t, workers)
		out, red := []int{6, 5}, []int{7, 3}
		in, vals := strided(t, d, r, device.Float32, []int{6, 5, 7, 3}, []int{3, 1, 0, 2}, 4)
		// Output 3 gets a NaN in the middle, output 7 two NaNs, output 11 ties
		// and output 12 only -Inf.
		for j := 0; j < 21; j++ {
			switch {
			case j == 10:
				vals[in.Index(3*21+j)] = math.NaN()
			case j == 4 || j == 15:
				vals[in.Index(7*21+j)] = math.NaN()
			}
			vals[in.Index(11*21+j)] = float64(j % 2)
			vals[in.Index(12*21+j)] = math.Inf(-1)
		}
		require.NoError(t, d.Write(in.Buf, 0, encode(device.Float32, vals)))
		for op := device.ReduceSum; op <= device.ReduceArgMin; op++ {
			v := vals
			if op == device.ReduceProd { // keep products of 21 factors tame
				v = make([]float64, len(vals))
				for i, x := range vals {
					v[i] = 1 + x/8
				}
				require.NoError(t, d.Write(in.Buf, 0, encode(device.Float32, v)))
			}
			got := runReduce(t, d, op, in, out, red)
			want := refOf(op, v, in, 30, 21)
			requireClose(t, want, got, 1e-5, 1e-5, op.String())
			if op == device.ReduceProd {
				require.NoError(t, d.Write(in.Buf, 0, encode(device.Float32, vals)))
			}
		}
	}
}

func TestReduceMiddleAxisAndManyOutputs(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 3)
	// Reduce axis 1 of a contiguous [400, 9, 53]: the view puts it last.
	x, vals := strided(t, d, r, device.Float32, []int{400, 9, 53}, []int{0, 1, 2}, 0)
	in := device.View{Buf: x.Buf, DType: device.Float32, Shape: []int{400, 53, 9}, Strides: []int{9 * 53, 1, 53}}
	for _, op := range []device.ReduceOp{device.ReduceSum, device.ReduceMax, device.ReduceArgMin} {
		got := runReduce(t, d, op, in, []int{400, 53}, []int{9})
		requireClose(t, refOf(op, vals, in, 400*53, 9), got, 1e-5, 1e-5, op.String())
	}
}

func TestReduceLongSumsAreAccurate(t *testing.T) {
	r := newRand(t)
	for _, workers := range []int{1, 2, 3} {
		d := newDevice(t, workers)
		n := 3_000_001
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64(float32(r.Float64()))
		}
		in := device.Contiguous(upload(t, d, device.Float32, vals), device.Float32, 0, []int{n})
		want := refReduce(device.ReduceSum, vals)
		got := runReduce(t, d, device.ReduceSum, in, nil, []int{n})
		require.InDelta(t, want, got[0], want*1e-7, "scalar sum of %d with %d workers", n, workers)
		// argmax over a long axis: plant the maximum late and a tie after it.
		vals[n-100], vals[n-5] = 2, 2
		require.NoError(t, d.Write(in.Buf, 0, encode(device.Float32, vals)))
		require.Equal(t, float64(n-100), runReduce(t, d, device.ReduceArgMax, in, nil, []int{n})[0])
		vals[n/2] = math.NaN()
		require.NoError(t, d.Write(in.Buf, 0, encode(device.Float32, vals)))
		require.True(t, math.IsNaN(runReduce(t, d, device.ReduceMax, in, nil, []int{n})[0]))
		require.Equal(t, float64(n/2), runReduce(t, d, device.ReduceArgMin, in, nil, []int{n})[0])
		// Two long rows.
		two := device.Contiguous(in.Buf, device.Float32, 1, []int{2, (n - 1) / 2})
		vals[n/2] = 0.5
		require.NoError(t, d.Write(in.Buf, 0, encode(device.Float32, vals)))
		got = runReduce(t, d, device.ReduceSum, two, []int{2}, []int{(n - 1) / 2})
		requireClose(t, refOf(device.ReduceSum, vals, two, 2, (n-1)/2), got, 0, 1e-7, "two rows")
	}
}

func TestReduceEmptyAndZeroOutputs(t *testing.T) {
	d := newDevice(t, 0)
	buf := upload(t, d, device.Float32, []float64{1})
	empty := device.View{Buf: buf, DType: device.Float32, Shape: []int{3, 0}, Strides: []int{0, 1}}
	require.Equal(t, []float64{0, 0, 0}, runReduce(t, d, device.ReduceSum, empty, []int{3}, []int{0}))
	require.Equal(t, []float64{1, 1, 1}, runReduce(t, d, device.ReduceProd, empty, []int{3}, []int{0}))
	none := device.View{Buf: buf, DType: device.Float32, Shape: []int{0, 5}, Strides: []int{5, 1}}
	require.Empty(t, runReduce(t, d, device.ReduceMax, none, []int{0}, []int{5}))
}

func TestReduceSoftmaxWithPrologueAndEpilogue(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	rows, cols := 37, 1001
	x, vals := strided(t, d, r, device.Float32, []int{rows, cols}, []int{1, 0}, 2)
	for i := range vals {
		vals[i] *= 20
	}
	require.NoError(t, d.Write(x.Buf, 0, encode(device.Float32, vals)))
	// m = max over columns; then s = sum exp(x - m) with m broadcast;
	// epilogue: lse = log(s) + m (float32) and inv = 1/s (bfloat16).
	m := device.Contiguous(poisoned(t, d, device.Float32, rows), device.Float32, 0, []int{rows})
	require.NoError(t, d.Reduce(&device.ReduceKernel{Op: device.ReduceMax, OutShape: []int{rows}, RedShape: []int{cols},
		Inputs: []device.View{x}, Prologue: device.Identity(device.Float32), Epilogue: device.Identity(device.Float32), Outputs: []device.View{m}}))
	mb := device.View{Buf: m.Buf, DType: device.Float32, Shape: []int{rows, cols}, Strides: []int{1, 0}}
	var pro device.Builder
	pro.Output(pro.Unary(device.OpExp, pro.Binary(device.OpSub, pro.Input(0, device.Float32), pro.Input(1, device.Float32))))
	var epi device.Builder
	s := epi.Input(0, device.Float32)
	epi.Output(epi.Binary(device.OpAdd, epi.Unary(device.OpLog, s), epi.Input(1, device.Float32)))
	epi.Output(epi.Unary(device.OpRecip, s))
	lse := device.Contiguous(poisoned(t, d, device.Float32, rows), device.Float32, 0, []int{rows})
	inv := device.Contiguous(poisoned(t, d, device.BFloat16, rows), device.BFloat16, 0, []int{rows})
	require.NoError(t, d.Reduce(&device.ReduceKernel{Op: device.ReduceSum, OutShape: []int{rows}, RedShape: []int{cols},
		Inputs: []device.View{x, mb}, Prologue: pro.P, EpilogueInputs: []device.View{m}, Epilogue: epi.P,
		Outputs: []device.View{lse, inv}}))
	gotL := download(t, d, lse.Buf, device.Float32, rows)
	gotI := download(t, d, inv.Buf, device.BFloat16, rows)
	for i := 0; i < rows; i++ {
		mx := math.Inf(-1)
		for j := 0; j < cols; j++ {
			mx = math.Max(mx, float64(float32(at(vals, x, i*cols+j))))
		}
		sum := 0.0
		for j := 0; j < cols; j++ {
			sum += math.Exp(float64(float32(at(vals, x, i*cols+j))) - mx)
		}
		require.InDelta(t, math.Log(sum)+mx, gotL[i], 1e-4, "row %d", i)
		require.InDelta(t, 1/sum, gotI[i], 1/sum*1e-2, "row %d", i)
	}
}
