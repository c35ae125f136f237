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
// result is built from slices, Flip and Cat, so gradients follow.
func (t *Tensor) Pad(pads []int, mode PadMode, value float64) *Tensor {
	t.check("Pad")
	if len(pads)%2 != 0 || len(pads)/2 > t.Dim() {
		usage("Pad", "pads %v must be pairs for at most the %d dimensions of %v", pads, t.Dim(), t.shape)
	}
	out := t
	for i := 0; i < len(pads); i += 2 {
		a := t.Dim() - 1 - i/2
		out = out.padAxis(a, pads[i], pads[i+1], mode, value)
	}
	return out
}

// padAxis pads dimension a with before and after elements.
func (t *Tensor) padAxis(a, before, after int, mode PadMode, value float64) *Tensor {
	if before == 0 && after == 0 {
		return t
	}
	n := t.shape[a]
	switch mode {
	case PadConstant:
		if before < 0 || after < 0 { // crop first
			lo, hi := max(-before, 0), max(-after, 0)
			if lo+hi > n {
				usage("Pad", "negative pads %d, %d remove more than the %d elements of dimension %d", before, after, n, a)
			}
			return t.Narrow(a, lo, n-lo-hi).padAxis(a, max(before, 0), max(after, 0), mode, value)
		}
		side := func(k int) *Tensor {
			sh := slices.Clone(t.shape)
			sh[a] = k
			return FullOf(t.n.dev, t.DType(), value, sh...)
		}
		return Cat(a, side(before), t, side(after))
	case PadReflect:
		if before < 0 || after < 0 || before >= n || after >= n {
			usage("Pad", "reflect pads %d, %d must be in [0, %d) for dimension %d of %v", before, after, n, a, t.shape)
		}
		return Cat(a, t.Narrow(a, 1, before).Flip(a), t, t.Narrow(a, n-1-after, after).Flip(a))
	case PadReplicate:
		if before < 0 || after < 0 || n == 0 {
			usage("Pad", "replicate pads %d, %d need non-negative pads and a non-empty dimension %d of %v", before, after, a, t.shape)
		}
		edge := func(at, k int) *Tensor {
			sh := slices.Clone(t.shape)
			sh[a] = k
			return t.Narrow(a, at, 1).Expand(sh...)
		}
		return Cat(a, edge(0, before), t, edge(n-1, after))
	}
	usage("Pad", "unknown mode %v", mode)
	return nil
}
