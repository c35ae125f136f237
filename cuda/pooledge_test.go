//go:build cgo && linux

package cuda

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// poolGeom is a pooling geometry over C channels of N images (O = Groups =
// C), with Out from the window unless adaptive.
func poolGeom(n, c int, in, out, k, s, p, d []int) device.ConvGeometry {
	g := device.ConvGeometry{N: n, C: c, O: c, Groups: c, In: in, Kernel: k, Stride: s, Padding: p, Dilation: d}
	if k == nil {
		g.Out = out
		return g
	}
	return withOut(g)
}

// TestPoolEdgeCases runs poolings the shared tests do not, against the CPU
// backend, forward then backward (max pooling's backward with each
// device's own indices): NaN, infinities, signed zeros and ties in max
// windows, an input of -Inf only, windows wholly in the padding (NoWinner,
// -Inf, a zero average), dilated 3-D windows, adaptive windows that
// overlap (more outputs than inputs) in 2-D and 3-D, averages with and
// without count_include_pad, and transposed, offset and broadcast views;
// then it compiles every source they generated to PTX with clang-19.
func TestPoolEdgeCases(t *testing.T) {
	tw := newTwins(t)
	poolEdgeCases(tw)
	t.Run("PTX", func(t *testing.T) { compileSourcesToPTX(t, generatedSources(t, tw.f, plEntry), plEntry) })
}

// poolEdgeCases runs TestPoolEdgeCases's kernels on tw.
func poolEdgeCases(tw *twins) {
	f32, i32 := device.Float32, device.Int32
	cases := []struct {
		g        device.ConvGeometry
		adaptive bool
		x, dy    layout
		gen      func() float64
	}{
		{poolGeom(2, 3, []int{5, 6, 7}, nil, []int{2, 3, 2}, []int{2, 1, 3}, []int{1, 1, 1}, []int{2, 1, 3}), false,
			layout{perm: []int{2, 0, 4, 1, 3}, offset: 3}, layout{broadcast: []int{0}}, tw.special},
		{poolGeom(1, 2, []int{2}, nil, []int{2}, []int{1}, []int{1}, []int{3}), false, layout{}, layout{perm: []int{2, 1, 0}}, tw.normal},
		{poolGeom(2, 2, []int{4, 5}, nil, []int{2, 2}, []int{2, 2}, []int{1, 1}, []int{1, 1}), false, layout{}, layout{},
			func() float64 { return math.Inf(-1) }},
		{poolGeom(2, 3, []int{7, 6}, nil, []int{3, 2}, []int{2, 2}, []int{1, 1}, []int{2, 1}), false,
			layout{perm: []int{1, 0, 3, 2}}, layout{offset: 4}, tw.special},
		{poolGeom(2, 2, []int{5, 3}, []int{7, 2}, nil, nil, nil, nil), true, layout{perm: []int{3, 2, 1, 0}}, layout{broadcast: []int{3}}, tw.special},
		{poolGeom(1, 3, []int{4, 5, 3}, []int{3, 2, 4}, nil, nil, nil, nil), true, layout{offset: 1}, layout{perm: []int{4, 3, 2, 1, 0}}, tw.special},
	}
	for _, c := range cases {
		g := c.g
		xs := slices.Concat([]int{g.N, g.C}, g.In)
		ys := slices.Concat([]int{g.N, g.C}, g.Out)
		x := tw.view(f32, xs, c.x, c.gen)
		dy := tw.view(f32, ys, c.dy, tw.normal)
		tl := gputest.Tol{Abs: 1e-6, Rel: 1e-6}
		for _, op := range []device.PoolOp{device.PoolMax, device.PoolAvg} {
			for _, incl := range []bool{false, true} {
				if incl && (op == device.PoolMax || c.adaptive) {
					continue
				}
				what := fmt.Sprintf("pool op %d adaptive=%v include_pad=%v %v", op, c.adaptive, incl, g)
				out, idx := tw.output(f32, ys), tw.output(i32, ys)
				kernel := func(i int, backward bool, x, out device.View) *device.PoolKernel {
					k := &device.PoolKernel{Op: op, Backward: backward, Adaptive: c.adaptive, CountIncludePad: incl, Geom: g, X: x, Out: out}
					if op == device.PoolMax {
						k.Indices = idx[i]
					}
					return k
				}
				tw.run(what, func(i int) error { return tw.devs[i].Pool(kernel(i, false, x[i], out[i])) })
				tw.check(what+": forward", out, tl)
				if op == device.PoolMax {
					tw.check(what+": indices", idx, gputest.Exact)
				}
				dx := tw.output(f32, xs)
				tw.run(what+" backward", func(i int) error { return tw.devs[i].Pool(kernel(i, true, dy[i], dx[i])) })
				tw.check(what+": backward", dx, tl)
			}
		}
	}
}
