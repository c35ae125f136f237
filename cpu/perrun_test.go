package cpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// TestPerRunOperands checks programs with an operand broadcast along the
// innermost dimension (a row's value along the row, a channel's along an
// image), which the interpreter treats as uniform within each run: the
// result must match element by element across run, chunk and worker
// boundaries, for rows shorter and longer than a chunk and with a
// half-precision operand.
func TestPerRunOperands(t *testing.T) {
	r := newRand(t)
	cases := []struct {
		shape, mStrides []int // the broadcast operand's strides over shape
		mLen            int
		dt              device.DType
		run             int // the plan's run (0: the operand is expanded instead)
	}{
		{[]int{37, 1001}, []int{1, 0}, 37, device.Float32, 1001},
		{[]int{9, 4099}, []int{1, 0}, 9, device.Float32, 4099},
		{[]int{300, 256}, []int{1, 0}, 300, device.Float32, 256},
		{[]int{300, 128}, []int{1, 0}, 300, device.Float32, 0},     // expanded: shorter than minRun
		{[]int{5, 6, 324}, []int{0, 1, 0}, 6, device.Float32, 324}, // a channel bias over images
		{[]int{40, 777}, []int{1, 0}, 40, device.Float16, 777},
		{[]int{500, 100}, []int{1, 0}, 500, device.Float32, 0}, // runs too short
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v_%v", c.shape, c.dt), func(t *testing.T) {
			for _, workers := range []int{1, 0} {
				d := newDevice(t, workers)
				n := device.NumElements(c.shape)
				xv, mv := randVals(r, n), randVals(r, c.mLen)
				x := device.Contiguous(upload(t, d, device.Float32, xv), device.Float32, 0, c.shape)
				m := device.View{Buf: upload(t, d, c.dt, mv), DType: c.dt, Shape: c.shape, Strides: c.mStrides}
				out := device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, c.shape)
				// y = ((x - m) * m + x) * 2: exactly rounded ops, so float32
				// arithmetic in Go gives the same bits.
				var pb device.Builder
				xi, mi := pb.Input(0, device.Float32), pb.Input(1, device.Float32)
				y := pb.Binary(device.OpAdd, pb.Binary(device.OpMul, pb.Binary(device.OpSub, xi, mi), mi), xi)
				pb.Output(pb.Binary(device.OpMul, y, pb.Const(2, device.Float32)))
				k := &device.ElementwiseKernel{Shape: c.shape, Inputs: []device.View{x, m}, Program: pb.P, Outputs: []device.View{out}}
				require.NoError(t, ran(d, d.Elementwise(k)))
				require.Equal(t, c.run, d.plans[0].run, "the plan's run")
				got := download(t, d, out.Buf, device.Float32, n)
				mq := download(t, d, m.Buf, c.dt, c.mLen) // m as stored (rounded to its type)
				for p := range n {
					xe, me := float32(xv[p]), float32(mq[m.Index(p)-m.Offset])
					// The conversion rounds the product, which arm64's compiler
					// would otherwise fuse with the addition, as the kernels do not.
					want := (float32((xe-me)*me) + xe) * 2
					if float64(want) != got[p] {
						require.Equal(t, float64(want), got[p], "position %d", p)
					}
				}
				// The same operand in a reduction's prologue: sums over the
				// innermost axis of (x - m)^2 at float32 precision.
				var pro device.Builder
				dd := pro.Binary(device.OpSub, pro.Input(0, device.Float32), pro.Input(1, device.Float32))
				pro.Output(pro.Binary(device.OpMul, dd, dd))
				inner := c.shape[len(c.shape)-1]
				o := n / inner
				sums := device.Contiguous(poisoned(t, d, device.Float32, o), device.Float32, 0, c.shape[:len(c.shape)-1])
				require.NoError(t, d.Reduce(&device.ReduceKernel{Op: device.ReduceSum, OutShape: c.shape[:len(c.shape)-1],
					RedShape: []int{inner}, Inputs: []device.View{x, m}, Prologue: pro.P,
					Epilogue: device.Identity(device.Float32), Outputs: []device.View{sums}}))
				gotS := download(t, d, sums.Buf, device.Float32, o)
				for i := range o {
					want := 0.0
					for j := range inner {
						p := i*inner + j
						e := float32(xv[p]) - float32(mq[m.Index(p)-m.Offset])
						want += float64(e * e)
					}
					require.InDelta(t, want, gotS[i], 1e-5*want+1e-6, "sum %d", i)
				}
			}
		})
	}
}

// TestUniformArithmetic checks that arithmetic on per-run operands (a
// layer norm's rsqrt(var + eps) of the row's variance) is computed once a
// chunk and gives each run its own value.
func TestUniformArithmetic(t *testing.T) {
	r := newRand(t)
	for _, workers := range []int{1, 0} {
		d := newDevice(t, workers)
		shape := []int{23, 1500}
		n, rows := 23*1500, 23
		xv, vv := randVals(r, n), randVals(r, rows)
		x := device.Contiguous(upload(t, d, device.Float32, xv), device.Float32, 0, shape)
		v := device.View{Buf: upload(t, d, device.Float32, vv), DType: device.Float32, Shape: shape, Strides: []int{1, 0}}
		out := device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, shape)
		var pb device.Builder
		xi, vi := pb.Input(0, device.Float32), pb.Input(1, device.Float32)
		scale := pb.Unary(device.OpRsqrt, pb.Binary(device.OpAdd, pb.Binary(device.OpMul, vi, vi), pb.Const(0.5, device.Float32)))
		pb.Output(pb.Binary(device.OpMul, pb.Binary(device.OpSub, xi, vi), scale))
		k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{x, v}, Program: pb.P, Outputs: []device.View{out}}
		require.NoError(t, ran(d, d.Elementwise(k)))
		require.True(t, d.plans[0].regs[scale].scalar, "rsqrt of a per-run operand is computed once a chunk")
		got := download(t, d, out.Buf, device.Float32, n)
		for p := range n {
			ve := float32(vv[p/1500])
			want := float64(float32(xv[p])-ve) / math.Sqrt(float64(ve*ve+0.5))
			require.InDelta(t, want, got[p], 1e-6*math.Abs(want)+1e-7, "position %d", p)
		}
	}
}
