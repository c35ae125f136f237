package cpu

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The wide path evaluates a chunk of positions at a time: a broadcast
// operand and a transposed one whose rows (67) do not divide the chunk make
// chunks begin and end inside rows and carry across dimensions.
func TestWideBinaryBroadcastAndTransposed(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	shape := []int{5, 3, 67}
	n := device.NumElements(shape)
	for _, dt := range []device.DType{device.Float64, device.Int64} {
		a, av := strided(t, d, r, dt, []int{5, 1, 67}, []int{0, 1, 2}, 0)
		a.Shape, a.Strides = shape, []int{a.Strides[0], 0, a.Strides[2]}
		b, bv := strided(t, d, r, dt, shape, []int{2, 0, 1}, 3)
		if dt == device.Int64 {
			bv[3+5], bv[3+9] = 0, 0 // integer division by zero yields zero
			require.NoError(t, d.Write(b.Buf, 0, encode(dt, bv)))
		}
		for _, op := range []device.Op{device.OpAdd, device.OpSub, device.OpMul, device.OpDiv, device.OpMax, device.OpMin} {
			var pb device.Builder
			pb.Output(pb.Binary(op, pb.Input(0, dt), pb.Input(1, dt)))
			out := poisoned(t, d, dt, n)
			k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{a, b}, Program: pb.P,
				Outputs: []device.View{device.Contiguous(out, dt, 0, shape)}}
			require.NoError(t, d.Elementwise(k), "%s %s", dt, op)
			got := download(t, d, out, dt, n)
			for p := range n {
				x, y := at(av, a, p), at(bv, b, p)
				want := device.BinaryF64(op, x, y)
				if dt == device.Int64 {
					want = float64(device.BinaryI64(op, int64(x), int64(y)))
				}
				if want != got[p] {
					require.Equal(t, want, got[p], "%s %s(%v, %v) at %d", dt, op, x, y, p)
				}
			}
		}
	}
}

// A Float64 sum over runs longer than a chunk, read through a transposed
// view, adds in order in float64.
func TestWideSumAcrossChunks(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	rows, cols := 3, 700
	in, vals := strided(t, d, r, device.Float64, []int{rows, cols}, []int{1, 0}, 2)
	res := device.Contiguous(poisoned(t, d, device.Float64, rows), device.Float64, 0, []int{rows})
	k := &device.ReduceKernel{Op: device.ReduceSum, OutShape: []int{rows}, RedShape: []int{cols}, Inputs: []device.View{in},
		Prologue: device.Identity(device.Float64), Epilogue: device.Identity(device.Float64), Outputs: []device.View{res}}
	require.NoError(t, d.Reduce(k))
	got := download(t, d, res.Buf, device.Float64, rows)
	for i := range rows {
		var want float64
		for j := range cols {
			want += at(vals, in, i*cols+j)
		}
		require.Equal(t, want, got[i], "row %d", i)
		require.False(t, math.IsNaN(got[i]))
	}
}
