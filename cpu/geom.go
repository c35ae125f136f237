package cpu

import "github.com/shaderflow/shaderflow/tensor/device"

// geom3 is a convolution or pooling geometry with its spatial dimensions
// padded in front to three (size 1, kernel 1, stride 1, no padding), so
// 1-D, 2-D and 3-D windows share one loop nest.
type geom3 struct {
	n, c, o, groups int
	cg, og          int // channels per group
	in, k, out      [3]int
	s, p, dl        [3]int
	inVol, kVol     int
	outVol          int
}

// norm3 pads g to three spatial dimensions; adaptive geometries have no
// kernel, stride, padding or dilation.
func norm3(g device.ConvGeometry, adaptive bool) geom3 {
	r := geom3{n: g.N, c: g.C, o: g.O, groups: max(g.Groups, 1)}
	r.cg, r.og = g.C/r.groups, g.O/r.groups
	sh := 3 - len(g.In)
	for i := 0; i < 3; i++ {
		r.in[i], r.k[i], r.out[i], r.s[i], r.dl[i] = 1, 1, 1, 1, 1
		if j := i - sh; j >= 0 {
			r.in[i], r.out[i] = g.In[j], g.Out[j]
			if !adaptive {
				r.k[i], r.s[i], r.p[i], r.dl[i] = g.Kernel[j], g.Stride[j], g.Padding[j], g.Dilation[j]
			}
		}
	}
	r.inVol = r.in[0] * r.in[1] * r.in[2]
	r.kVol = r.k[0] * r.k[1] * r.k[2]
	r.outVol = r.out[0] * r.out[1] * r.out[2]
	return r
}

// strides5 returns the strides of an [N, C, spatial...] view padded to five
// dimensions like norm3 pads the geometry.
func strides5(v device.View) [5]int {
	var st [5]int
	st[0], st[1] = v.Strides[0], v.Strides[1]
	sh := 5 - len(v.Strides)
	for i := 2; i < len(v.Strides); i++ {
		st[i+sh] = v.Strides[i]
	}
	return st
}

// window is the valid part of one dimension of a window: input positions
// first + k*step for k in [k0, k1).
type window struct {
	first, step, k0, k1 int
}

// convWindow returns output position o's window along dimension i, clipped
// to the input.
func (g *geom3) convWindow(i, o int) window {
	first := o*g.s[i] - g.p[i]
	k0, k1 := tapsInside(first, g.dl[i], g.k[i], g.in[i])
	return window{first: first, step: g.dl[i], k0: k0, k1: k1}
}

// tapsInside returns the taps [k0, k1) of a window of k taps dl apart,
// starting at input coordinate first, that lie inside an input of n.
func tapsInside(first, dl, k, n int) (k0, k1 int) {
	if last := n - 1 - first; last >= 0 {
		k1 = min(k, last/dl+1)
	}
	if first < 0 {
		k0 = min((-first+dl-1)/dl, k1)
	}
	return k0, k1
}

// padCount is the number of window positions along dimension i that lie in
// the padded input [-p, in+p): PyTorch's divisor with count_include_pad.
func (g *geom3) padCount(i, o int) int {
	first, d := o*g.s[i]-g.p[i], g.dl[i]
	n := 0
	for k := 0; k < g.k[i]; k++ {
		if x := first + k*d; x >= -g.p[i] && x < g.in[i]+g.p[i] {
			n++
		}
	}
	return n
}

// adaptiveWindow returns output position o's adaptive window along
// dimension i: [floor(o*in/out), ceil((o+1)*in/out)).
func (g *geom3) adaptiveWindow(i, o int) window {
	in, out := g.in[i], g.out[i]
	lo := o * in / out
	hi := ((o+1)*in + out - 1) / out
	return window{first: lo, step: 1, k0: 0, k1: hi - lo}
}
