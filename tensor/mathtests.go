package tensor

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Elementwise tests, logic and clamping in PyTorch's spelling.

// IsInf returns a Bool tensor marking +Inf and -Inf, as torch.isinf
// (integer tensors have none).
func (t *Tensor) IsInf() *Tensor {
	t.check("IsInf")
	if !t.DType().IsFloat() {
		return FullOf(t.Device(), Bool, 0, t.shape...)
	}
	return t.Detach().Abs().EqScalar(math.Inf(1))
}

// IsFinite returns a Bool tensor marking elements that are neither NaN nor
// infinite, as torch.isfinite (integer tensors are all finite).
func (t *Tensor) IsFinite() *Tensor {
	t.check("IsFinite")
	if !t.DType().IsFloat() {
		return FullOf(t.Device(), Bool, 1, t.shape...)
	}
	return t.Detach().Abs().LtScalar(math.Inf(1))
}

// LogicalXor is the elementwise exclusive or of the truth values of t and o
// (nonzero is true), with broadcasting, as torch.logical_xor.
func (t *Tensor) LogicalXor(o *Tensor) *Tensor {
	t.check("LogicalXor")
	o.check("LogicalXor")
	return elementwiseNoGrad("LogicalXor", device.OpNe, Bool, Int32, []*Tensor{t.Cast(Bool), o.Cast(Bool)})
}

// LogicalNot negates the truth value of every element (nonzero is true), as
// torch.logical_not; it is Not under PyTorch's name.
func (t *Tensor) LogicalNot() *Tensor { return t.Not() }

// ClampMin limits every element to at least lo, as torch.clamp(t, min=lo)
// (torch.clamp_min): NaN stays NaN, and the gradient passes where t ≥ lo.
func (t *Tensor) ClampMin(lo float64) *Tensor {
	t.check("ClampMin")
	return t.Clamp(lo, t.openBound(lo, 1))
}

// ClampMax limits every element to at most hi, as torch.clamp(t, max=hi)
// (torch.clamp_max): NaN stays NaN, and the gradient passes where t ≤ hi.
func (t *Tensor) ClampMax(hi float64) *Tensor {
	t.check("ClampMax")
	return t.Clamp(t.openBound(hi, -1), hi)
}

// openBound is the bound on the side of sign (+1 or -1) that leaves every
// value of t unclamped next to the bound v: ±Inf, or the Int32 extreme where
// both t and v are integral (so that an Int32 tensor stays Int32).
func (t *Tensor) openBound(v float64, sign int) float64 {
	if t.scalarType(v) == Int32 {
		if sign > 0 {
			return math.MaxInt32
		}
		return math.MinInt32
	}
	return math.Inf(sign)
}

// ClampTensor limits every element of t to [lo, hi] elementwise with
// broadcasting, as torch.clamp(t, min=lo, max=hi) with tensor bounds: the
// value is min(max(t, lo), hi), either bound may be nil (not both), and a NaN
// in t or in a bound gives NaN. Gradients are PyTorch's: t's passes where
// lo ≤ t ≤ hi, lo's where t < lo < hi, hi's where t > hi or hi < lo (so
// neither bound gets one where t < lo = hi).
func (t *Tensor) ClampTensor(lo, hi *Tensor) *Tensor {
	t.check("ClampTensor")
	if lo == nil && hi == nil {
		usage("ClampTensor", "needs at least one of lo and hi")
	}
	x := t.Detach()
	v := x // the value, with NaN propagated by Maximum and Minimum
	inside := x.Eq(x)
	var below, above *Tensor
	if lo != nil {
		lo.check("ClampTensor")
		l := lo.Detach()
		v = v.Maximum(l)
		inside = inside.LogicalAnd(x.Ge(l))
		below = x.Lt(l)
	}
	if hi != nil {
		hi.check("ClampTensor")
		h := hi.Detach()
		v = v.Minimum(h)
		inside = inside.LogicalAnd(x.Le(h))
		above = x.Gt(h)
	}
	if lo != nil && hi != nil {
		l, h := lo.Detach(), hi.Detach()
		below = below.LogicalAnd(l.Lt(h))
		above = above.LogicalOr(h.Lt(l))
	}
	// Each branch is taken where its value equals v, so that the gradient
	// goes where PyTorch sends it and v (no gradient) is left for the rest.
	if hi != nil {
		v = Where(above, hi, v)
	}
	if lo != nil {
		v = Where(below, lo, v)
	}
	return Where(inside, t, v)
}

// NanToNum replaces NaN by nan, +Inf by posinf and -Inf by neginf, as
// torch.nan_to_num(t, nan, posinf, neginf); NanToNumDefault gives PyTorch's
// defaults. Integer tensors are returned unchanged. The gradient passes
// where t is finite, as PyTorch's.
func (t *Tensor) NanToNum(nan, posinf, neginf float64) *Tensor {
	t.check("NanToNum")
	if !t.DType().IsFloat() {
		return t
	}
	x := t.Detach()
	out := Where(x.EqScalar(math.Inf(-1)), t.scalarLike(neginf), t)
	out = Where(x.EqScalar(math.Inf(1)), t.scalarLike(posinf), out)
	return Where(x.IsNaN(), t.scalarLike(nan), out)
}

// NanToNumDefault is NanToNum with torch.nan_to_num's defaults: NaN becomes
// 0 and ±Inf the largest finite value of t's dtype with its sign.
func (t *Tensor) NanToNumDefault() *Tensor {
	t.check("NanToNumDefault")
	m := maxFinite(t.DType())
	return t.NanToNum(0, m, -m)
}

// maxFinite is the largest finite value of a float dtype.
func maxFinite(dt DType) float64 {
	switch dt {
	case Float16:
		return 65504
	case BFloat16:
		return 0x1.fep127
	}
	return math.MaxFloat32
}
