package tensor

import "slices"

// PadMode says how Pad fills the border, as torch.nn.functional.pad's mode.
type PadMode int

const (
	// PadConstant fills the border with a value (negative pads crop).
	PadConstant PadMode = iota
	// PadReflect mirrors the tensor without repeating the edge element
	// (each pad must be smaller than the dimension).
	PadReflect
	// PadReplicate repeats the edge element (the dimension must not be empty).
	PadReplicate
)

// String returns the mode's PyTorch name.
func (m PadMode) String() string {
	switch m {
	case PadConstant:
		return "constant"
	case PadReflect:
		return "reflect"
	case PadReplicate:
		return "replicate"
	}
	return "PadMode(?)"
}

// Pad pads the tensor as torch.nn.functional.pad: pads holds pairs (before,
// after) starting from the last dimension, so [1, 2] pads the last dimension
// with one element before and two after and [1, 2, 3, 4] also pads the one
// before it with three and four. value is used by PadConstant only. Unlike
// PyTorch 1.13, reflect and replicate pad any dimensions of any rank. The
// result is assembled in one pass from the tensor and its slices, flips and
// broadcasts (or the constant), up to three padded dimensions at a time, so
// gradients follow.
func (t *Tensor) Pad(pads []int, mode PadMode, value float64) *Tensor {
	t.check("Pad")
	if len(pads)%2 != 0 || len(pads)/2 > t.Dim() {
		usage("Pad", "pads %v must be pairs for at most the %d dimensions of %v", pads, t.Dim(), t.shape)
	}
	if mode != PadConstant && mode != PadReflect && mode != PadReplicate {
		usage("Pad", "unknown mode %v", mode)
	}
	out := t
	var g padGrid
	for i := 0; i < len(pads); i += 2 {
		a, before, after := t.Dim()-1-i/2, pads[i], pads[i+1]
		if before == 0 && after == 0 {
			continue
		}
		out.checkPads(a, before, after, mode)
		if mode == PadConstant && (before < 0 || after < 0) { // crop first
			lo, hi := max(-before, 0), max(-after, 0)
			out = out.Narrow(a, lo, out.shape[a]-lo-hi)
			before, after = max(before, 0), max(after, 0)
			if before == 0 && after == 0 {
				continue // cropped only: a view
			}
		}
		g.axes = append(g.axes, padAxis{a, before, after})
		if len(g.axes) == maxGridAxes {
			out, g = g.pad(out, mode, value), padGrid{}
		}
	}
	return g.pad(out, mode, value)
}

// maxGridAxes is the most dimensions one assembly pads: it copies up to
// 3^maxGridAxes regions.
const maxGridAxes = 3

// padAxis is one padded dimension and its pads, neither negative.
type padAxis struct{ a, before, after int }

// padGrid pads a few dimensions at once: each splits into the part before,
// the tensor's own extent and the part after, and the result is the grid of
// those regions.
type padGrid struct{ axes []padAxis }

// checkPads refuses pads that mode cannot fill along dimension a.
func (t *Tensor) checkPads(a, before, after int, mode PadMode) {
	n := t.shape[a]
	switch mode {
	case PadConstant:
		if lo, hi := max(-before, 0), max(-after, 0); lo+hi > n {
			usage("Pad", "negative pads %d, %d remove more than the %d elements of dimension %d", before, after, n, a)
		}
	case PadReflect:
		if before < 0 || after < 0 || before >= n || after >= n {
			usage("Pad", "reflect pads %d, %d must be in [0, %d) for dimension %d of %v", before, after, n, a, t.shape)
		}
	case PadReplicate:
		if before < 0 || after < 0 || n == 0 {
			usage("Pad", "replicate pads %d, %d need non-negative pads and a non-empty dimension %d of %v", before, after, a, t.shape)
		}
	}
}

// pad assembles t padded along g's dimensions from its regions.
func (g padGrid) pad(t *Tensor, mode PadMode, value float64) *Tensor {
	if len(g.axes) == 0 {
		return t
	}
	shape := slices.Clone(t.shape)
	for _, p := range g.axes {
		shape[p.a] += p.before + p.after
	}
	var parts []*Tensor
	var starts [][]int
	regions := 1
	for range g.axes {
		regions *= 3
	}
	for r := range regions {
		part, start := g.region(t, r, mode, value)
		if part != nil {
			parts, starts = append(parts, part), append(starts, start)
		}
	}
	return place(t.n.dev, t.DType(), shape, parts, starts)
}

// region returns region r of the grid (its digits in base 3 say, for each
// padded dimension, before, inside or after) and where it starts, or nil
// when it is empty.
func (g padGrid) region(t *Tensor, r int, mode PadMode, value float64) (*Tensor, []int) {
	start := make([]int, t.Dim())
	shape := slices.Clone(t.shape)
	part, constant := t, false
	for _, p := range g.axes {
		seg := r % 3
		r /= 3
		n := t.shape[p.a]
		switch seg {
		case 0:
			shape[p.a] = p.before
		case 1:
			start[p.a] = p.before
			continue
		case 2:
			shape[p.a], start[p.a] = p.after, p.before+n
		}
		if shape[p.a] == 0 {
			return nil, nil
		}
		switch mode {
		case PadConstant:
			constant = true
		case PadReflect:
			if seg == 0 {
				part = part.Narrow(p.a, 1, p.before).Flip(p.a)
			} else {
				part = part.Narrow(p.a, n-1-p.after, p.after).Flip(p.a)
			}
		case PadReplicate:
			edge := 0
			if seg == 2 {
				edge = n - 1
			}
			sh := slices.Clone(part.shape)
			sh[p.a] = shape[p.a]
			part = part.Narrow(p.a, edge, 1).Expand(sh...)
		}
	}
	if constant {
		return FullOf(t.n.dev, t.DType(), value, shape...), start
	}
	return part, start
}
