package tensor

import (
	"math"
	"slices"
)

// InterpolateMode selects how Interpolate computes a resampled value.
type InterpolateMode uint8

// The interpolation modes.
const (
	// InterpolateNearest is PyTorch's mode="nearest": the input element at
	// floor(dst·scale), clamped to the input.
	InterpolateNearest InterpolateMode = iota
	// InterpolateLinear is PyTorch's "linear", "bilinear" or "trilinear"
	// for 3-D, 4-D or 5-D inputs: linear interpolation along every spatial
	// dimension in turn.
	InterpolateLinear
)

// InterpolateOptions are the parameters of Interpolate: exactly one of Size
// (the output spatial size) and Scale (factors; the output size is
// floor(in·scale)), each with one value per spatial dimension or one for
// all, and AlignCorners (PyTorch's align_corners, linear mode only).
type InterpolateOptions struct {
	Size         []int
	Scale        []float64
	Mode         InterpolateMode
	AlignCorners bool
}

// Interpolate is torch.nn.functional.interpolate of [N, C, spatial...] (1 to
// 3 spatial dimensions) in nearest or (bi/tri)linear mode, with PyTorch's
// source-index rules computed in float32 as PyTorch does for float32 inputs
// (recompute_scale_factor unset: a given Scale is used as 1/scale). It is
// a composition of IndexSelect and elementwise ops, one spatial dimension at
// a time, so its gradient is theirs.
func (t *Tensor) Interpolate(o InterpolateOptions) *Tensor {
	const op = "Interpolate"
	t.check(op)
	nd := t.Dim() - 2
	if nd < 1 || nd > 3 {
		usage(op, "needs [N, C] and 1 to 3 spatial dimensions, got %v", t.shape)
	}
	if o.Mode > InterpolateLinear {
		usage(op, "unknown mode %d", o.Mode)
	}
	if o.AlignCorners && o.Mode == InterpolateNearest {
		usage(op, "align corners applies to linear modes only")
	}
	if (o.Size == nil) == (o.Scale == nil) {
		usage(op, "give exactly one of size %v and scale %v", o.Size, o.Scale)
	}
	x := t.asFloat32()
	for i := range nd {
		in := t.shape[2+i]
		out, scale := interpolateSize(op, o, i, nd, in)
		if in == 0 && out > 0 {
			usage(op, "cannot resample an empty input %v", t.shape)
		}
		shape := x.Shape()
		shape[2+i] = out
		checkExtent(op, shape)
		if out == in && o.Scale == nil {
			continue // the identity, in every mode
		}
		if o.Mode == InterpolateNearest {
			x = x.IndexSelect(2+i, x.indexTensor(nearestIndices(in, out, scale)))
			continue
		}
		x = x.lerpAlong(2+i, linearTaps(in, out, scale, o.AlignCorners))
	}
	return x
}

// interpolateSize returns the output size of spatial dimension i and
// PyTorch's scale for it (in/out as float32, or 1/Scale when a scale is
// given), refusing sizes and scales that are not positive.
func interpolateSize(op string, o InterpolateOptions, i, nd, in int) (int, float32) {
	if o.Size != nil {
		out := spatial(op, "size", o.Size, nd, 0)[i]
		if out < 1 {
			usage(op, "output size %v must be positive", o.Size)
		}
		return out, float32(in) / float32(out)
	}
	var s float64
	switch len(o.Scale) {
	case 1:
		s = o.Scale[0]
	case nd:
		s = o.Scale[i]
	default:
		usage(op, "scale %v: need 1 or %d values", o.Scale, nd)
	}
	if !(s > 0) || math.IsInf(s, 1) || float64(in)*s >= math.MaxInt32 {
		usage(op, "scale %v must be positive and finite", o.Scale)
	}
	out := int(math.Floor(float64(in) * s))
	if out < 1 {
		usage(op, "scale %v of input size %d gives an empty output", o.Scale, in)
	}
	return out, float32(1 / s)
}

// nearestIndices is PyTorch's nearest_idx for each output position.
func nearestIndices(in, out int, scale float32) []int32 {
	idx := make([]int32, out)
	for d := range idx {
		switch {
		case out == in:
			idx[d] = int32(d)
		case out == 2*in:
			idx[d] = int32(d >> 1)
		default:
			idx[d] = int32(min(int(float32(math.Floor(float64(float32(d)*scale)))), in-1))
		}
	}
	return idx
}

// taps are, for each output position, the two input positions it mixes and
// the weight of the second.
type taps struct {
	lo, hi []int32
	w      []float32
}

// linearTaps is PyTorch's linear source index for each output position:
// d·(in-1)/(out-1) with aligned corners, else (d+0.5)·scale - 0.5 clamped
// at 0, computed in float32.
func linearTaps(in, out int, scale float32, alignCorners bool) taps {
	tp := taps{lo: make([]int32, out), hi: make([]int32, out), w: make([]float32, out)}
	if alignCorners {
		scale = 0
		if out > 1 {
			scale = float32(in-1) / float32(out-1)
		}
	}
	for d := range out {
		var src float32
		if alignCorners {
			src = scale * float32(d)
		} else {
			src = max(scale*(float32(d)+0.5)-0.5, 0)
		}
		i0 := min(int(src), in-1)
		tp.lo[d], tp.hi[d] = int32(i0), int32(min(i0+1, in-1))
		tp.w[d] = src - float32(i0)
	}
	return tp
}

// lerpAlong mixes t's positions along axis by tp: lo·(1-w) + hi·w.
func (t *Tensor) lerpAlong(axis int, tp taps) *Tensor {
	shape := make([]int, t.Dim())
	for i := range shape {
		shape[i] = 1
	}
	shape[axis] = len(tp.w)
	w := FromFloat32s(t.Device(), tp.w, shape...)
	oneMinus := make([]float32, len(tp.w))
	for i, v := range tp.w {
		oneMinus[i] = 1 - v
	}
	w0 := FromFloat32s(t.Device(), oneMinus, shape...)
	lo := t.IndexSelect(axis, t.indexTensor(tp.lo))
	hi := t.IndexSelect(axis, t.indexTensor(tp.hi))
	return lo.Mul(w0).Add(hi.Mul(w))
}

// indexTensor uploads idx as a 1-D Int32 tensor on t's device.
func (t *Tensor) indexTensor(idx []int32) *Tensor {
	return FromInt32s(t.Device(), slices.Clip(idx), len(idx))
}
