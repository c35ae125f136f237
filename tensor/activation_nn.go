package tensor

// More of torch.nn.functional's activations, each a composition of existing
// ops (see activation.go): their gradients follow from the parts', and
// fusion runs each as one kernel. Branches are selected with Where, and the
// branch not taken is fed a finite stand-in, so that its gradient is zero
// rather than 0·Inf.

// selu's constants are PyTorch's (torch.nn.functional.selu).
const (
	seluAlpha = 1.6732632423543772848170429916717
	seluScale = 1.0507009873554804934193349852946
)

// LeakyRelu returns t where t > 0 and t*slope elsewhere, as
// torch.nn.functional.leaky_relu(t, negative_slope=slope) (PyTorch's default
// slope is 0.01). Its gradient at 0 is slope, as PyTorch's.
func (t *Tensor) LeakyRelu(slope float64) *Tensor {
	t.check("LeakyRelu")
	return Where(t.GtScalar(0), t, t.MulScalar(slope))
}

// Elu returns t where t > 0 and alpha*(e^t - 1) elsewhere, as
// torch.nn.functional.elu(t, alpha) (PyTorch's default alpha is 1); at NaN
// the gradient passes, as PyTorch's.
func (t *Tensor) Elu(alpha float64) *Tensor {
	t.check("Elu")
	neg := t.Le(t.scalarLike(0))
	x := Where(neg, t, t.scalarLike(0)) // e^t of a large t would overflow
	return Where(neg, x.Expm1().MulScalar(alpha), t)
}

// Selu returns scale*Elu(alpha) with PyTorch's constants alpha ≈ 1.6733 and
// scale ≈ 1.0507, as torch.nn.functional.selu.
func (t *Tensor) Selu() *Tensor {
	t.check("Selu")
	return t.Elu(seluAlpha).MulScalar(seluScale)
}

// Hardsigmoid returns clamp(t+3, 0, 6)/6, as torch.nn.functional.hardsigmoid.
// Its gradient is 1/6 strictly inside (-3, 3) and zero elsewhere, as
// PyTorch's.
func (t *Tensor) Hardsigmoid() *Tensor {
	t.check("Hardsigmoid")
	y := t.AddScalar(3).Clamp(0, 6).DivScalar(6)
	return Where(t.Abs().LtScalar(3), y, y.Detach())
}

// Hardswish returns t*clamp(t+3, 0, 6)/6, as torch.nn.functional.hardswish
// (so -Inf gives NaN, as there); at NaN the gradient passes, as PyTorch's.
func (t *Tensor) Hardswish() *Tensor {
	t.check("Hardswish")
	nan := t.IsNaN()
	x := Where(nan, t.scalarLike(0), t) // a finite stand-in: 0·NaN would be NaN
	return Where(nan, t, x.Mul(x.AddScalar(3).Clamp(0, 6)).DivScalar(6))
}

// Glu splits t in halves a, b along axis and returns a*sigmoid(b), as
// torch.nn.functional.glu(t, dim=axis). The size along axis must be even.
func (t *Tensor) Glu(axis int) *Tensor {
	t.check("Glu")
	if t.Dim() == 0 {
		usage("Glu", "needs at least one dimension, got a scalar")
	}
	ax := normAxis("Glu", axis, t.Dim())
	n := t.shape[ax]
	if n%2 != 0 {
		usage("Glu", "halving dimension %d of %v must be even, but has size %d", ax, t.shape, n)
	}
	return t.Narrow(ax, 0, n/2).Mul(t.Narrow(ax, n/2, n/2).Sigmoid())
}
