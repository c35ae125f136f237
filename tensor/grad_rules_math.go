package tensor

import "math"

// The backward rules of mathops.go's primitive ops, PyTorch's formulas
// (derivatives.yaml).
func init() {
	r := &gradRules
	r[opLog1p] = func(c *gradCtx) []*Tensor { return grads(c.g.Div(c.in(0).AddScalar(1))) }
	r[opExpm1] = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.out().AddScalar(1))) }
	r[opLog2] = func(c *gradCtx) []*Tensor { return grads(c.g.Div(c.in(0).MulScalar(math.Ln2))) }
	r[opSinh] = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.in(0).Cosh())) }
	r[opCosh] = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.in(0).Sinh())) }
	r[opAtan] = func(c *gradCtx) []*Tensor {
		x := c.in(0)
		return grads(c.g.Div(x.Mul(x).AddScalar(1)))
	}
	// d asin = 1/sqrt(1 - x²), d acos = -1/sqrt(1 - x²).
	r[opAsin] = func(c *gradCtx) []*Tensor {
		x := c.in(0)
		return grads(c.g.Mul(x.Mul(x).RSubScalar(1).Rsqrt()))
	}
	r[opAcos] = func(c *gradCtx) []*Tensor {
		x := c.in(0)
		return grads(c.g.Mul(x.Mul(x).RSubScalar(1).Rsqrt()).Neg())
	}
	r[opRound] = func(c *gradCtx) []*Tensor { return grads(ZerosLike(c.g)) }
	r[opTrunc] = r[opRound]
	r[opAtan2] = func(c *gradCtx) []*Tensor {
		y, x := c.in(0), c.in(1)
		recip := x.Mul(x).Add(y.Mul(y)).Reciprocal()
		return grads(c.g.Mul(x).Mul(recip), c.g.Mul(y).Mul(recip).Neg())
	}
	r[opFmod] = func(c *gradCtx) []*Tensor {
		a, b := c.in(0), c.in(1)
		var gb *Tensor
		if c.needs(1) {
			gb = c.g.Mul(a.Div(b).Trunc()).Neg()
		}
		return grads(c.g, gb)
	}
}
