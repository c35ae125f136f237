package gpu

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Kernels whose views span more than one binding (Target.MaxBindingBytes)
// run in slabs: boxes of the kernel's split space (the elementwise shape,
// a reduction's outputs) whose views each fit in one binding, one launch
// per slab. A slab fixes the leading dimensions to single indices, takes a
// range of the next one and all of the rest, so its row-major positions
// are a contiguous range of the whole space's: base + the slab's own
// position. Position-dependent ops (OpIndex, the random streams) add the
// base (the program block's position-base word), so each slab computes
// what one launch over the whole space would.

// slab is one box of a split space.
type slab struct {
	start []int // first index along each dimension
	shape []int // extent along each dimension
	base  int   // row-major position of start in the whole space
}

// view returns the part of v (whose leading dimensions are the split
// space's) that the slab covers.
func (s slab) view(v device.View) device.View {
	off := v.Offset
	for i, x := range s.start {
		off += x * v.Strides[i]
	}
	return device.View{Buf: v.Buf, DType: v.DType, Offset: off,
		Shape: slices.Concat(s.shape, v.Shape[len(s.shape):]), Strides: v.Strides}
}

// views returns the slab's part of each view.
func (s slab) views(vs []device.View) []device.View {
	out := make([]device.View, len(vs))
	for i, v := range vs {
		out[i] = s.view(v)
	}
	return out
}

// fitsBindings reports whether the views bind on t as one launch's
// bindingPlan would bind them: one binding per distinct buffer, covering
// the whole buffer or the aligned union of its views' spans.
func fitsBindings(t Target, views []device.View) bool {
	var p bindingPlan
	p.init(t)
	for _, v := range views {
		p.add(0, v)
	}
	for i, buf := range p.bufs {
		if _, _, ok := t.bindRange(buf, p.lo[i], p.hi[i]); !ok {
			return false
		}
	}
	return true
}

// splitSpace returns the slabs of the space shape over which views (each
// with shape's dimensions leading) fit one binding each on t, or nil when
// the whole space fits. Every slab also binds the fixed views whole (a
// convolution's weights, a gather's source indexed along its leading
// axis). Each slab takes as long a range of its dimension
// as fits; where a single index of a dimension does not fit, the slab
// fixes it and splits the next dimension. A single element that does not
// fit (views of one buffer far apart) becomes a slab of its own, which the
// binding plan then refuses with its error.
func splitSpace(t Target, shape []int, views, fixed []device.View) []slab {
	if len(shape) == 0 || fitsBindings(t, slices.Concat(views, fixed)) {
		return nil
	}
	contig := device.ContiguousStrides(shape)
	start := make([]int, len(shape))
	var out []slab
	box := func(d, c int) []int {
		b := slices.Clone(shape)
		for i := 0; i < d; i++ {
			b[i] = 1
		}
		b[d] = c
		return b
	}
	fits := func(d, c int) bool {
		s := slab{start: start, shape: box(d, c)}
		return fitsBindings(t, append(s.views(views), fixed...))
	}
	var split func(d int)
	split = func(d int) {
		for i := 0; i < shape[d]; {
			start[d] = i
			if !fits(d, 1) && d+1 < len(shape) {
				split(d + 1)
				start[d] = i
				i++
				continue
			}
			lo, hi := 1, shape[d]-i // lo fits (or is a lone element)
			for lo < hi {
				m := (lo + hi + 1) / 2
				if fits(d, m) {
					lo = m
				} else {
					hi = m - 1
				}
			}
			base := 0
			for j, x := range start {
				base += x * contig[j]
			}
			out = append(out, slab{start: slices.Clone(start), shape: box(d, lo), base: base})
			i += lo
		}
		start[d] = 0
	}
	split(0)
	return out
}
