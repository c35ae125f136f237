//go:build cgo && linux

package cuda

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestReduceEdgeCases runs reductions the shared tests do not, against the
// CPU backend, on each of the kernels rdBlocking picks: long rows (the block
// kernel, one output a block), short ones (several outputs a block),
// columns (32 outputs a block), rows and columns long enough to split into
// parts folded by a second launch, a full reduction, and short rows (the
// serial kernel). Values tie often and hold NaN, infinities and signed
// zeros, or tie only (argmax and argmin must keep the first extreme), or
// are all equal (products: values near one); sums use both programs'
// positions and an epilogue input.
// Then it compiles every source they generated to PTX with clang-19.
func TestReduceEdgeCases(t *testing.T) {
	tw := newTwins(t)
	f32, i32 := device.Float32, device.Int32
	shapes := []struct {
		out, red []int
		lay      layout
	}{
		{[]int{5}, []int{3000}, layout{}},
		{[]int{40}, []int{100}, layout{offset: 3}},
		{[]int{70}, []int{300}, layout{perm: []int{1, 0}}},
		{[]int{3, 4}, []int{50, 2}, layout{perm: []int{2, 0, 3, 1}}},
		{[]int{2}, []int{20000}, layout{}},
		{[]int{33}, []int{9000}, layout{perm: []int{1, 0}}},
		{[]int{}, []int{3, 5000}, layout{perm: []int{1, 0}}},
		{[]int{300}, []int{7}, layout{}},
	}
	gens := map[string]func() float64{
		"specials": tw.special,
		"ties":     func() float64 { return float64(tw.rng.IntN(3)) },
		"equal":    func() float64 { return 1 },
	}
	ops := []device.ReduceOp{device.ReduceSum, device.ReduceProd, device.ReduceMax, device.ReduceMin, device.ReduceArgMax, device.ReduceArgMin}
	for _, sh := range shapes {
		full := slices.Concat(sh.out, sh.red)
		for _, op := range ops {
			names := []string{"specials", "ties", "equal"}
			switch op {
			case device.ReduceSum, device.ReduceProd:
				names = names[:1]
			case device.ReduceMax, device.ReduceMin:
				names = names[:2]
			}
			for _, gn := range names {
				gen := gens[gn]
				if op == device.ReduceProd {
					gen = func() float64 { return 1 + 1e-3*tw.normal() }
				}
				x := tw.view(f32, full, sh.lay, gen)
				what := fmt.Sprintf("%s over %v of %v %+v (%s)", op, sh.red, full, sh.lay, gn)
				var pro, epi device.Builder
				var bias [2]device.View
				outType, tol := f32, gputest.Exact
				switch op {
				case device.ReduceArgMax, device.ReduceArgMin:
					pro.Output(pro.Input(0, f32))
					epi.Output(epi.Input(0, i32))
					outType = i32
				case device.ReduceSum:
					pos := pro.Binary(device.OpMul, pro.Cast(pro.Index(), f32), pro.Const(1e-3, f32))
					pro.Output(pro.Binary(device.OpAdd, pro.Input(0, f32), pos))
					bias = tw.view(f32, sh.out, layout{}, tw.normal)
					epi.Output(epi.Binary(device.OpAdd, epi.Binary(device.OpAdd, epi.Input(0, f32), epi.Input(1, f32)),
						epi.Cast(epi.Index(), f32)))
					tol = gputest.Tol{Abs: 1e-3, Rel: 1e-4}
				default:
					pro.Output(pro.Input(0, f32))
					epi.Output(epi.Input(0, f32))
					if op == device.ReduceProd {
						tol = gputest.Tol{Rel: 1e-4}
					}
				}
				out := tw.output(outType, sh.out)
				tw.run(what, func(i int) error {
					k := &device.ReduceKernel{Op: op, OutShape: sh.out, RedShape: sh.red, Inputs: []device.View{x[i]},
						Prologue: pro.P, Epilogue: epi.P, Outputs: []device.View{out[i]}}
					if bias[i].Buf != nil {
						k.EpilogueInputs = []device.View{bias[i]}
					}
					return tw.devs[i].Reduce(k)
				})
				tw.check(what, out, tol)
			}
		}
	}
	for _, op := range []device.ReduceOp{device.ReduceSum, device.ReduceProd} { // empty reductions
		x := tw.view(f32, []int{4, 0}, layout{}, tw.normal)
		out := tw.output(f32, []int{4})
		tw.run(op.String()+" over nothing", func(i int) error {
			return tw.devs[i].Reduce(&device.ReduceKernel{Op: op, OutShape: []int{4}, RedShape: []int{0},
				Inputs: []device.View{x[i]}, Prologue: device.Identity(f32), Epilogue: device.Identity(f32), Outputs: []device.View{out[i]}})
		})
		tw.check(op.String()+" over nothing", out, gputest.Exact)
	}
	assert.Positive(t, tw.f.count(t, "cuLaunchKernel "+rdEntry+" "), "the serial kernel ran")
	assert.Positive(t, tw.f.count(t, "cuLaunchKernel "+rdBlockEntry+" "), "the block kernel ran")
	t.Run("PTX", func(t *testing.T) {
		for _, entry := range []string{rdEntry, rdBlockEntry} {
			compileSourcesToPTX(t, generatedSources(t, tw.f, entry), entry)
		}
	})
}
