package tensor

import (
	"cmp"
	"slices"
)

// gradTerms collects the contributions to one tensor's gradient during
// Backward: those of ordinary rules, added as they arrive, and those of the
// Slices taken of it, kept apart so that the slices' gradients can be laid
// side by side instead of each being scattered into zeros of the whole
// shape and the results added.
type gradTerms struct {
	sum    *Tensor     // the ordinary contributions added up; nil for none
	n      int         // how many contributions, of both kinds, arrived
	slices []sliceTerm // the slices' gradients, in arrival order
}

// sliceTerm is the gradient g of a Slice with parameters p.
type sliceTerm struct {
	p sliceParams
	g *Tensor
}

// add adds an ordinary contribution.
func (a *gradTerms) add(g *Tensor) {
	if a.sum == nil {
		a.sum = g
	} else {
		a.sum = a.sum.Add(g)
	}
	a.n++
}

// addSlice adds the gradient g of a Slice with parameters p.
func (a *gradTerms) addSlice(p sliceParams, g *Tensor) {
	a.slices = append(a.slices, sliceTerm{p, g})
	a.n++
}

// total returns the gradient of a tensor of shape shape: the slices'
// gradients placed into the tensor's shape, plus the ordinary sum.
func (a *gradTerms) total(shape []int) *Tensor {
	g := slicesGrad(shape, a.slices)
	switch {
	case g == nil:
		return a.sum
	case a.sum == nil:
		return g
	default:
		return g.Add(a.sum)
	}
}

// slicesGrad returns the sum of the gradients of the given slices of a
// tensor of shape shape, nil for none. Slices of step 1 along one dimension
// that do not overlap (such as the query, key and value parts of a fused
// projection) make one Cat of their gradients with zeros in the gaps;
// overlapping ones make several such Cats, added up. A slice of step above
// 1 scatters its gradient into zeros, the Slice rule's way.
func slicesGrad(shape []int, terms []sliceTerm) *Tensor {
	var res *Tensor
	plus := func(g *Tensor) {
		if res == nil {
			res = g
		} else {
			res = res.Add(g)
		}
	}
	byDim := map[int][]sliceTerm{}
	var dims []int
	for _, s := range terms {
		if s.p.step != 1 {
			plus(scatterSliceGrad(shape, s.p, s.g))
			continue
		}
		if byDim[s.p.dim] == nil {
			dims = append(dims, s.p.dim)
		}
		byDim[s.p.dim] = append(byDim[s.p.dim], s)
	}
	for _, dim := range dims {
		for _, layer := range disjointLayers(byDim[dim]) {
			plus(padCat(shape, dim, layer))
		}
	}
	return res
}

// disjointLayers sorts step-1 slices along one dimension by start and
// deals them into layers of slices that do not overlap, each slice into
// the first layer it fits.
func disjointLayers(terms []sliceTerm) [][]sliceTerm {
	terms = slices.Clone(terms)
	slices.SortStableFunc(terms, func(a, b sliceTerm) int { return cmp.Compare(a.p.start, b.p.start) })
	var layers [][]sliceTerm
	var ends []int // where each layer's last slice ends
next:
	for _, s := range terms {
		for i, end := range ends {
			if s.p.start >= end {
				layers[i] = append(layers[i], s)
				ends[i] = s.p.start + s.g.shape[s.p.dim]
				continue next
			}
		}
		layers = append(layers, []sliceTerm{s})
		ends = append(ends, s.p.start+s.g.shape[s.p.dim])
	}
	return layers
}

// padCat places the gradients of disjoint step-1 slices along dim, sorted
// by start, into a tensor of shape shape, zeros elsewhere: one Cat, or the
// gradient itself when a single slice covers the whole dimension.
func padCat(shape []int, dim int, layer []sliceTerm) *Tensor {
	g0 := layer[0].g
	if len(layer) == 1 && g0.shape[dim] == shape[dim] {
		return g0
	}
	zeros := func(n int) *Tensor {
		sh := slices.Clone(shape)
		sh[dim] = n
		return FullOf(g0.Device(), g0.DType(), 0, sh...)
	}
	var parts []*Tensor
	at := 0
	for _, s := range layer {
		if s.p.start > at {
			parts = append(parts, zeros(s.p.start-at))
		}
		parts = append(parts, s.g)
		at = s.p.start + s.g.shape[dim]
	}
	if at < shape[dim] {
		parts = append(parts, zeros(shape[dim]-at))
	}
	return Cat(dim, parts...)
}

// scatterSliceGrad is the gradient of a Slice with parameters p whose
// output's gradient is g: g scattered into zeros of the input's shape.
func scatterSliceGrad(shape []int, p sliceParams, g *Tensor) *Tensor {
	ones := make([]int, g.Dim())
	for i := range ones {
		ones[i] = 1
	}
	ones[p.dim] = g.shape[p.dim]
	pos := Arange(g.Device(), float64(p.start), float64(p.start+p.step*g.shape[p.dim]), float64(p.step)).
		Cast(Int32).Reshape(ones...).Expand(g.shape...)
	return ScatterAdd(shape, p.dim, pos, g)
}
