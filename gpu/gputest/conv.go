package gputest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// convGeom completes a geometry with Out computed from the rest.
func convGeom(n, c, o, groups int, in, k, s, p, dil []int) device.ConvGeometry {
	out := make([]int, len(in))
	for i := range in {
		out[i] = (in[i]+2*p[i]-dil[i]*(k[i]-1)-1)/s[i] + 1
	}
	return device.ConvGeometry{N: n, C: c, O: o, Groups: groups, In: in, Kernel: k, Out: out, Stride: s, Padding: p, Dilation: dil}
}

// forEach calls f with every multi-index of shape.
func forEach(shape []int, f func(idx []int)) {
	idx := make([]int, len(shape))
	n := device.NumElements(shape)
	for p := 0; p < n; p++ {
		q := p
		for i := len(shape) - 1; i >= 0; i-- {
			idx[i] = q % shape[i]
			q /= shape[i]
		}
		f(idx)
	}
}

// flat is the row-major position of idx in shape.
func flat(idx, shape []int) int {
	p := 0
	for i, x := range idx {
		p = p*shape[i] + x
	}
	return p
}

// convRef computes, in float64, the forward result y and the two gradients
// dx and dw for upstream gradient dy, by walking every (output, tap) pair.
func convRef(g device.ConvGeometry, x, w, dy []float64) (y, dx, dw []float64) {
	xs := slices.Concat([]int{g.N, g.C}, g.In)
	ws := slices.Concat([]int{g.O, g.C / g.Groups}, g.Kernel)
	ys := slices.Concat([]int{g.N, g.O}, g.Out)
	y = make([]float64, device.NumElements(ys))
	dx = make([]float64, device.NumElements(xs))
	dw = make([]float64, device.NumElements(ws))
	cg, og := g.C/g.Groups, g.O/g.Groups
	pos := make([]int, len(g.In))
	forEach(ys, func(yi []int) {
		n, o := yi[0], yi[1]
		yp := flat(yi, ys)
		forEach(slices.Concat([]int{cg}, g.Kernel), func(ck []int) {
			for d := range g.In {
				pos[d] = yi[2+d]*g.Stride[d] - g.Padding[d] + ck[1+d]*g.Dilation[d]
				if pos[d] < 0 || pos[d] >= g.In[d] {
					return
				}
			}
			ci := o/og*cg + ck[0]
			xp := flat(slices.Concat([]int{n, ci}, pos), xs)
			wp := flat(slices.Concat([]int{o}, ck), ws)
			y[yp] += x[xp] * w[wp]
			dx[xp] += dy[yp] * w[wp]
			dw[wp] += dy[yp] * x[xp]
		})
	})
	return y, dx, dw
}

func testConv(t *testing.T, d device.Device) {
	rng := NewRand(t)
	f32 := device.Float32
	geoms := []device.ConvGeometry{
		convGeom(2, 3, 4, 1, []int{11}, []int{3}, []int{2}, []int{1}, []int{1}),
		convGeom(2, 4, 6, 2, []int{7, 9}, []int{3, 2}, []int{1, 2}, []int{1, 0}, []int{2, 1}),
		convGeom(1, 2, 2, 1, []int{4, 5, 3}, []int{2, 2, 2}, []int{1, 1, 1}, []int{0, 1, 1}, []int{1, 1, 1}),
		convGeom(3, 6, 6, 6, []int{8, 8}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}), // depthwise
	}
	for gi, g := range geoms {
		xs := slices.Concat([]int{g.N, g.C}, g.In)
		ws := slices.Concat([]int{g.O, g.C / g.Groups}, g.Kernel)
		ys := slices.Concat([]int{g.N, g.O}, g.Out)
		l := Layouts[gi%len(Layouts)]
		if l == Broadcast {
			l = Reversed
		}
		x := Make(t, d, rng, f32, xs, l, Normal(f32))
		w := Make(t, d, rng, f32, ws, Contiguous, Normal(f32))
		dy := Make(t, d, rng, f32, ys, Offset, Normal(f32))
		y, dx, dw := convRef(g, x.Values, w.Values, dy.Values)
		// Forward with a fused per-channel bias and ReLU.
		bias := Make(t, d, rng, f32, []int{g.O}, Contiguous, Normal(f32))
		bv := bias.View
		bv.Shape = ys
		bv.Strides = make([]int, len(ys))
		bv.Strides[1] = 1
		var e device.Builder
		e.Output(e.Unary(device.OpRelu, e.Binary(device.OpAdd, e.Input(0, f32), e.Input(1, f32))))
		what := fmt.Sprintf("conv %v", g)
		out := Output(t, d, f32, 1, ys)
		require.NoError(t, d.Conv(&device.ConvKernel{Mode: device.ConvForward, Geom: g, A: x.View, B: w.View,
			EpilogueInputs: []device.View{bv}, Epilogue: e.P, Outputs: []device.View{out}}), what)
		want := make([]float64, len(y))
		for p := range y {
			c := (p / device.NumElements(g.Out)) % g.O
			want[p] = max(0, float64(float32(y[p]))+bias.Values[c])
		}
		tl := Tol{Abs: 1e-5, Rel: 1e-5}
		Check(t, what+": forward", Fetch(t, d, out), want, tl)
		dxOut := Output(t, d, f32, 0, xs)
		require.NoError(t, d.Conv(&device.ConvKernel{Mode: device.ConvBackwardInput, Geom: g, A: dy.View, B: w.View,
			Epilogue: device.Identity(f32), Outputs: []device.View{dxOut}}), what)
		Check(t, what+": backward input", Fetch(t, d, dxOut), dx, tl)
		dwOut := Output(t, d, f32, 2, ws)
		require.NoError(t, d.Conv(&device.ConvKernel{Mode: device.ConvBackwardWeight, Geom: g, A: dy.View, B: x.View,
			Epilogue: device.Identity(f32), Outputs: []device.View{dwOut}}), what)
		Check(t, what+": backward weight", Fetch(t, d, dwOut), dw, tl)
	}
}
