package gputest

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// window returns the input positions of output position y's window along
// every dimension, -1 for padding.
func window(k *device.PoolKernel, y []int) [][]int {
	g := k.Geom
	taps := make([][]int, len(g.In))
	for d := range g.In {
		if k.Adaptive {
			lo := y[d] * g.In[d] / g.Out[d]
			hi := ((y[d]+1)*g.In[d] + g.Out[d] - 1) / g.Out[d]
			for x := lo; x < hi; x++ {
				taps[d] = append(taps[d], x)
			}
			continue
		}
		for t := 0; t < g.Kernel[d]; t++ {
			x := y[d]*g.Stride[d] - g.Padding[d] + t*g.Dilation[d]
			if x < 0 || x >= g.In[d] {
				x = -1
			}
			taps[d] = append(taps[d], x)
		}
	}
	return taps
}

// poolRef computes, in float64, the forward output, the winning positions
// (max) and the input gradient for upstream gradient dy.
func poolRef(k *device.PoolKernel, x, dy []float64) (out, idx, dx []float64) {
	g := k.Geom
	nc := g.N * g.C
	sin, sout := device.NumElements(g.In), device.NumElements(g.Out)
	dx = make([]float64, nc*sin)
	for b := 0; b < nc; b++ {
		forEach(g.Out, func(y []int) {
			yp := b*sout + flat(y, g.Out)
			best, bi, sum, count, size := math.Inf(-1), -1, 0.0, 0, 1
			var in []int
			taps := window(k, y)
			sizes := make([]int, len(taps))
			for d, t := range taps {
				sizes[d] = len(t)
				size *= len(t)
			}
			forEach(sizes, func(t []int) {
				pos := make([]int, len(t))
				for d := range t {
					pos[d] = taps[d][t[d]]
					if pos[d] < 0 {
						return
					}
				}
				xp := flat(pos, g.In)
				v := x[b*sin+xp]
				if bi < 0 || v > best || math.IsNaN(v) {
					best, bi = v, xp
				}
				sum += v
				count++
				in = append(in, xp)
			})
			if k.Op == device.PoolMax {
				out = append(out, best)
				idx = append(idx, float64(bi))
				if bi >= 0 {
					dx[b*sin+bi] += dy[yp]
				}
				return
			}
			div := float64(count)
			if k.CountIncludePad && !k.Adaptive {
				div = float64(size)
			}
			out = append(out, sum/div)
			for _, xp := range in {
				dx[b*sin+xp] += dy[yp] / div
			}
		})
	}
	return out, idx, dx
}

func testPool(t *testing.T, d device.Device) {
	rng := NewRand(t)
	f32, i32 := device.Float32, device.Int32
	type pc struct {
		op             device.PoolOp
		adaptive, incl bool
		g              device.ConvGeometry
	}
	var cases []pc
	for _, op := range []device.PoolOp{device.PoolMax, device.PoolAvg} {
		cases = append(cases,
			pc{op, false, true, convGeom(2, 3, 3, 3, []int{13}, []int{3}, []int{2}, []int{1}, []int{1})},
			pc{op, false, false, convGeom(2, 2, 2, 2, []int{7, 9}, []int{3, 2}, []int{2, 1}, []int{1, 1}, []int{1, 2})},
			pc{op, false, true, convGeom(1, 2, 2, 2, []int{4, 5, 6}, []int{2, 3, 2}, []int{2, 2, 1}, []int{1, 1, 0}, []int{1, 1, 2})},
			pc{op, true, false, device.ConvGeometry{N: 2, C: 3, O: 3, Groups: 3, In: []int{10, 7}, Out: []int{3, 4}}},
		)
	}
	for _, c := range cases {
		g := c.g
		xs := slices.Concat([]int{g.N, g.C}, g.In)
		ys := slices.Concat([]int{g.N, g.C}, g.Out)
		x := Make(t, d, rng, f32, xs, Reversed, WithSpecials(Normal(f32)))
		if c.op == device.PoolAvg {
			x = Make(t, d, rng, f32, xs, Reversed, Normal(f32))
		}
		dy := Make(t, d, rng, f32, ys, Offset, Normal(f32))
		k := &device.PoolKernel{Op: c.op, Adaptive: c.adaptive, CountIncludePad: c.incl, Geom: g, X: x.View, Out: Output(t, d, f32, 1, ys)}
		if c.op == device.PoolMax {
			k.Indices = Output(t, d, i32, 0, ys)
		}
		what := fmt.Sprintf("pool %v adaptive=%v include_pad=%v %v", c.op, c.adaptive, c.incl, g)
		require.NoError(t, d.Pool(k), what)
		out, idx, dx := poolRef(k, x.Values, dy.Values)
		tl := Tol{Abs: 1e-6, Rel: 1e-6}
		Check(t, what+": forward", Fetch(t, d, k.Out), out, tl)
		if c.op == device.PoolMax {
			Check(t, what+": indices", Fetch(t, d, k.Indices), idx, Exact)
		}
		bk := &device.PoolKernel{Op: c.op, Backward: true, Adaptive: c.adaptive, CountIncludePad: c.incl, Geom: g,
			X: dy.View, Out: Output(t, d, f32, 2, xs), Indices: k.Indices}
		require.NoError(t, d.Pool(bk), what+" backward")
		Check(t, what+": backward", Fetch(t, d, bk.Out), dx, tl)
	}
}
