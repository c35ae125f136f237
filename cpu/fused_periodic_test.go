package cpu

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestPeriodicOperands checks programs whose operands are broadcast along
// outer dimensions (a channel's bias over images, a Linear layer's bias
// over rows), which the fused machine streams from one period written out:
// y = (relu(x + b) * c) - b, with c a constant or a second broadcast
// operand, element by element against float32 arithmetic, for periods that
// are and are not multiples of a block, plans shorter than a period, a
// period too long to write out, and parallel pieces that start inside a
// period.
func TestPeriodicOperands(t *testing.T) {
	r := newRand(t)
	cases := []struct {
		shape, bStrides, cStrides []int // cStrides nil: c is the constant 3
		period                    int   // the plan's period where the machine runs (0: none)
	}{
		{[]int{3, 32, 28, 28}, []int{0, 1, 0, 0}, nil, 25088},  // conv1's bias
		{[]int{5, 64, 14, 14}, []int{0, 1, 0, 0}, nil, 12544},  // conv2's
		{[]int{16, 64, 32, 32}, []int{0, 1, 0, 0}, nil, 65536}, // the longest period, many pieces
		{[]int{4, 6, 7, 9}, []int{0, 1, 0, 0}, nil, 12096},     // longer than the plan
		{[]int{64, 128}, []int{0, 1}, nil, 1024},               // a Linear layer's bias, repeated to periodMinLen
		{[]int{33, 10}, []int{0, 1}, nil, 960},
		{[]int{7, 16, 100}, []int{0, 1, 0}, []int{0, 0, 1}, 1600}, // two operands
		// b moves along both inner dimensions, which c keeps apart: its
		// period is 9 × 130, not a row.
		{[]int{5, 9, 130}, []int{0, 130, 1}, []int{0, 0, 1}, 37440},
		{[]int{3, 70001}, []int{0, 1}, nil, 0}, // too long a period
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v", c.shape), func(t *testing.T) {
			for _, workers := range []int{1, 0} {
				d := newDevice(t, workers)
				n := device.NumElements(c.shape)
				bLen := operandLen(c.shape, c.bStrides)
				xv, bv := randVals(r, n), randVals(r, bLen)
				x := device.Contiguous(upload(t, d, device.Float32, xv), device.Float32, 0, c.shape)
				b := device.View{Buf: upload(t, d, device.Float32, bv), DType: device.Float32, Shape: c.shape, Strides: c.bStrides}
				out := device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, c.shape)
				inputs := []device.View{x, b}
				var pb device.Builder
				xi, bi := pb.Input(0, device.Float32), pb.Input(1, device.Float32)
				ci := pb.Const(3, device.Float32)
				var cv []float64
				var cw device.View
				if c.cStrides != nil {
					cv = randVals(r, operandLen(c.shape, c.cStrides))
					cw = device.View{Buf: upload(t, d, device.Float32, cv), DType: device.Float32, Shape: c.shape, Strides: c.cStrides}
					inputs = append(inputs, cw)
					ci = pb.Input(2, device.Float32)
				}
				y := pb.Unary(device.OpRelu, pb.Binary(device.OpAdd, xi, bi))
				pb.Output(pb.Binary(device.OpSub, pb.Binary(device.OpMul, y, ci), bi))
				k := &device.ElementwiseKernel{Shape: c.shape, Inputs: inputs, Program: pb.P, Outputs: []device.View{out}}
				require.NoError(t, ran(d, d.Elementwise(k)))
				if useFused && vec.FusedAvailable() {
					require.Equal(t, c.period, d.plans[0].period, "the plan's period")
					require.Equal(t, c.period > 0, d.plans[0].fused, "on the fused machine")
				}
				got := download(t, d, out.Buf, device.Float32, n)
				for p := range n {
					be, ce := float32(bv[b.Index(p)]), float32(3)
					if cv != nil {
						ce = float32(cv[cw.Index(p)])
					}
					s := max(float32(float32(xv[p])+be), 0)
					want := float32(float32(s*ce) - be)
					if float64(want) != got[p] {
						require.Equal(t, float64(want), got[p], "position %d (workers %d)", p, workers)
					}
				}
			}
		})
	}
}

// operandLen returns how many elements a view of shape with strides
// (non-negative, zero where it broadcasts) reads at most.
func operandLen(shape, strides []int) int {
	last := 0
	for d, n := range shape {
		last += (n - 1) * strides[d]
	}
	return last + 1
}

// TestPeriodicReluGradient runs ReLU's gradient, Where(m > 0, v, +0), with
// one side broadcast along outer dimensions (a channel's value over images)
// as either the test or the value, on the fused machine with one worker
// and several, against the selection written out.
func TestPeriodicReluGradient(t *testing.T) {
	if !vec.FusedAvailable() {
		t.Skip("no fused machine at this level")
	}
	r := newRand(t)
	shape, strides := []int{5, 64, 14, 14}, []int{0, 1, 0, 0}
	n := device.NumElements(shape)
	for _, broadcastTest := range []bool{true, false} {
		for _, workers := range []int{1, 0} {
			d := newDevice(t, workers)
			xv, bv := randVals(r, n), randVals(r, operandLen(shape, strides))
			x := device.Contiguous(upload(t, d, device.Float32, xv), device.Float32, 0, shape)
			b := device.View{Buf: upload(t, d, device.Float32, bv), DType: device.Float32, Shape: shape, Strides: strides}
			out := device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, shape)
			var pb device.Builder
			xi, bi := pb.Input(0, device.Float32), pb.Input(1, device.Float32)
			m, v := bi, pb.Unary(device.OpNeg, xi)
			if !broadcastTest {
				m, v = pb.Unary(device.OpNeg, xi), bi
			}
			pb.Output(pb.Where(pb.Binary(device.OpGt, m, pb.Const(0, device.Float32)), v, pb.Const(0, device.Float32)))
			k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{x, b}, Program: pb.P, Outputs: []device.View{out}}
			require.NoError(t, ran(d, d.Elementwise(k)))
			if useFused {
				require.True(t, d.plans[0].fused && d.plans[0].period > 0, "a periodic operand on the fused machine (broadcast test %v)", broadcastTest)
			}
			got := download(t, d, out.Buf, device.Float32, n)
			for p := range n {
				mv, vv := float32(bv[b.Index(p)]), -float32(xv[p])
				if !broadcastTest {
					mv, vv = -float32(xv[p]), float32(bv[b.Index(p)])
				}
				want := float32(0)
				if mv > 0 {
					want = vv
				}
				if float64(want) != got[p] {
					require.Equal(t, float64(want), got[p], "position %d (broadcast test %v, workers %d)", p, broadcastTest, workers)
				}
			}
		}
	}
}
