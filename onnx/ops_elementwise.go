package onnx

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor"
)

// binary describes an elementwise operation of two inputs.
type binaryOp struct {
	f      func(a, b float64) float64 // on the host, floats
	i      func(a, b int64) int64     // on the host, integers (nil: through f)
	dev    func(a, b *tensor.Tensor) *tensor.Tensor
	result DataType // Bool for comparisons; Undefined: the inputs' type
}

func boolF(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var binaries = map[string]binaryOp{
	"Add": {f: func(a, b float64) float64 { return a + b }, i: func(a, b int64) int64 { return a + b },
		dev: (*tensor.Tensor).Add},
	"Sub": {f: func(a, b float64) float64 { return a - b }, i: func(a, b int64) int64 { return a - b },
		dev: (*tensor.Tensor).Sub},
	"Mul": {f: func(a, b float64) float64 { return a * b }, i: func(a, b int64) int64 { return a * b },
		dev: (*tensor.Tensor).Mul},
	"Div": {f: func(a, b float64) float64 { return a / b }, i: func(a, b int64) int64 {
		if b == 0 {
			panic("integer division by zero")
		}
		return a / b
	}, dev: (*tensor.Tensor).Div},
	"Pow": {f: math.Pow, dev: (*tensor.Tensor).Pow},
	"Mod": {f: math.Mod, i: func(a, b int64) int64 {
		if b == 0 {
			panic("integer modulo by zero")
		}
		m := a % b
		if m != 0 && (m < 0) != (b < 0) {
			m += b
		}
		return m
	}, dev: (*tensor.Tensor).Remainder},
	"Equal":          {f: func(a, b float64) float64 { return boolF(a == b) }, dev: (*tensor.Tensor).Eq, result: Bool},
	"Less":           {f: func(a, b float64) float64 { return boolF(a < b) }, dev: (*tensor.Tensor).Lt, result: Bool},
	"LessOrEqual":    {f: func(a, b float64) float64 { return boolF(a <= b) }, dev: (*tensor.Tensor).Le, result: Bool},
	"Greater":        {f: func(a, b float64) float64 { return boolF(a > b) }, dev: (*tensor.Tensor).Gt, result: Bool},
	"GreaterOrEqual": {f: func(a, b float64) float64 { return boolF(a >= b) }, dev: (*tensor.Tensor).Ge, result: Bool},
	"And":            {f: func(a, b float64) float64 { return boolF(a != 0 && b != 0) }, dev: (*tensor.Tensor).LogicalAnd, result: Bool},
	"Or":             {f: func(a, b float64) float64 { return boolF(a != 0 || b != 0) }, dev: (*tensor.Tensor).LogicalOr, result: Bool},
	"Xor":            {f: func(a, b float64) float64 { return boolF((a != 0) != (b != 0)) }, dev: (*tensor.Tensor).LogicalXor, result: Bool},
}

// runBinary runs a two-input elementwise operation.
func runBinary(c *call) error {
	b := binaries[c.n.OpType]
	if err := c.need(2); err != nil {
		return err
	}
	x, y := c.in[0], c.in[1]
	dt := b.result
	if dt == Undefined {
		dt = x.dt
	}
	if x.dt != y.dt && c.n.OpType != "Pow" {
		return fmt.Errorf("inputs of types %v and %v", x.dt, y.dt)
	}
	if c.n.OpType == "Mod" && x.dt.IsFloat() && c.n.attrInt("fmod", 0) == 0 {
		return fmt.Errorf("fmod=0 on floating-point inputs")
	}
	if c.n.OpType == "Mod" && c.n.attrInt("fmod", 0) != 0 {
		b.f = math.Mod
		b.i = func(a, b int64) int64 {
			if b == 0 {
				panic("integer modulo by zero")
			}
			return a % b
		}
	}
	if c.allHost() {
		var h *hostValue
		var err error
		if b.i != nil && !x.dt.IsFloat() && !y.dt.IsFloat() {
			h, err = hostMapInt(dt, func(v []int64) int64 { return b.i(v[0], v[1]) }, c.h(0), c.h(1))
		} else {
			h, err = hostMap(dt, func(v []float64) float64 { return b.f(v[0], v[1]) }, c.h(0), c.h(1))
		}
		if err != nil {
			return err
		}
		c.setHost(h)
		return nil
	}
	if c.n.OpType == "Mod" {
		return runMod(c, dt)
	}
	if c.n.OpType == "Pow" && !x.dt.IsFloat() {
		return runIntPow(c, dt)
	}
	if c.n.OpType == "Div" && !dt.IsFloat() {
		q, _ := intDivMod(c.t(0), c.t(1), true)
		c.setDev(dt, q)
		return nil
	}
	if c.n.OpType == "Pow" && y.host != nil && y.host.size() == 1 && x.dt.IsFloat() {
		c.setDev(dt, c.t(0).PowScalar(y.host.at(0)))
		return nil
	}
	a, o := c.t(0), c.t(1)
	if c.n.OpType == "Pow" && o.DType() != a.DType() {
		o = o.Cast(a.DType())
	}
	r := b.dev(a, o)
	if want, _ := deviceType(dt); r.DType() != want {
		// Integer Div and Pow compute in float on the device: truncate back.
		r = r.Cast(want)
	}
	c.setDev(dt, r)
	return nil
}

// runMod runs Mod on the device: C fmod with fmod=1, else the remainder
// with the divisor's sign; integers exactly in Int32.
func runMod(c *call, dt DataType) error {
	a, b := c.t(0), c.t(1)
	fmod := c.n.attrInt("fmod", 0) != 0
	switch {
	case !dt.IsFloat():
		_, r := intDivMod(a, b, fmod)
		c.setDev(dt, r)
	case fmod:
		c.setDev(dt, a.Fmod(b))
	default:
		c.setDev(dt, a.Remainder(b))
	}
	return nil
}

// runIntPow raises an integer tensor to a constant exponent of 0 to 64 by
// squaring, exactly in Int32 (wrapping as integer arithmetic does); a
// float32 detour would round results above 2^24, so other exponents are
// unsupported.
func runIntPow(c *call, dt DataType) error {
	y := c.in[1]
	if y.host == nil || y.host.size() != 1 || y.dt.IsFloat() {
		return c.unsupported("%v base with an exponent that is not one constant integer", x0(c))
	}
	k := int64(y.host.at(0))
	if k < 0 || k > 64 {
		return c.unsupported("%v base with exponent %d (0 to 64 supported)", x0(c), k)
	}
	base := c.t(0).Cast(tensor.Int32)
	r := tensor.OnesLike(base)
	for ; k > 0; k >>= 1 {
		if k&1 != 0 {
			r = r.Mul(base)
		}
		if k > 1 {
			base = base.Mul(base)
		}
	}
	want, _ := deviceType(dt)
	c.setDev(dt, r.Cast(want))
	return nil
}

// x0 is the type of a call's first input.
func x0(c *call) DataType { return c.in[0].dt }

// intDivMod returns the quotient of integer tensors a and b, truncated
// toward zero (ONNX's integer Div, C's fmod) or floored (Mod), and the
// remainder a - q·b, computed exactly in Int32 and given back in a's type.
// Division by zero gives the quotient 0 and the remainder a.
func intDivMod(a, b *tensor.Tensor, truncate bool) (q, r *tensor.Tensor) {
	want := a.DType()
	a, b = a.Cast(tensor.Int32), b.Cast(tensor.Int32)
	q = a.FloorDiv(b)
	r = a.Sub(q.Mul(b))
	if truncate {
		// Floor and truncation differ where the division is inexact and
		// the operands' signs differ.
		zero := tensor.ZerosLike(r)
		fix := r.Ne(zero).LogicalAnd(a.Lt(zero).LogicalXor(b.Lt(zero)))
		q = tensor.Where(fix, q.Add(tensor.OnesLike(q)), q)
		r = tensor.Where(fix, r.Sub(b), r)
	}
	return q.Cast(want), r.Cast(want)
}

// variadic runs Min, Max, Sum and Mean over any number of inputs.
func runVariadic(c *call) error {
	if len(c.in) == 0 || c.in[0] == nil {
		return fmt.Errorf("no inputs")
	}
	dt := c.in[0].dt
	for _, v := range c.in {
		if v == nil || v.dt != dt {
			return fmt.Errorf("inputs of different types")
		}
	}
	var f func(a, b float64) float64
	var dev func(a, b *tensor.Tensor) *tensor.Tensor
	switch c.n.OpType {
	case "Min":
		f, dev = math.Min, (*tensor.Tensor).Minimum
	case "Max":
		f, dev = math.Max, (*tensor.Tensor).Maximum
	default:
		f, dev = func(a, b float64) float64 { return a + b }, (*tensor.Tensor).Add
	}
	if c.allHost() {
		acc := c.h(0)
		for i := 1; i < len(c.in); i++ {
			var err error
			if acc, err = hostMap(dt, func(v []float64) float64 { return f(v[0], v[1]) }, acc, c.h(i)); err != nil {
				return err
			}
		}
		if c.n.OpType == "Mean" {
			n := float64(len(c.in))
			acc, _ = hostMap(dt, func(v []float64) float64 { return v[0] / n }, acc)
		}
		c.setHost(acc)
		return nil
	}
	acc := c.t(0)
	for i := 1; i < len(c.in); i++ {
		acc = dev(acc, c.t(i))
	}
	if len(c.in) == 1 {
		acc = acc.Add(tensor.ZerosLike(acc)) // a new value, as ONNX gives
	}
	if c.n.OpType == "Mean" {
		acc = acc.DivScalar(float64(len(c.in)))
	}
	c.setDev(dt, acc)
	return nil
}

// unary describes an elementwise operation of one input.
type unaryOp struct {
	f   func(x float64) float64 // on the host (nil: device only)
	dev func(c *call, t *tensor.Tensor) *tensor.Tensor
}

func method(f func(*tensor.Tensor) *tensor.Tensor) func(*call, *tensor.Tensor) *tensor.Tensor {
	return func(_ *call, t *tensor.Tensor) *tensor.Tensor { return f(t) }
}

var unaries = map[string]unaryOp{
	"Relu":       {f: func(x float64) float64 { return math.Max(x, 0) }, dev: method((*tensor.Tensor).Relu)},
	"Sigmoid":    {dev: method((*tensor.Tensor).Sigmoid)},
	"Tanh":       {f: math.Tanh, dev: method((*tensor.Tensor).Tanh)},
	"Erf":        {f: math.Erf, dev: method((*tensor.Tensor).Erf)},
	"Sqrt":       {f: math.Sqrt, dev: method((*tensor.Tensor).Sqrt)},
	"Exp":        {f: math.Exp, dev: method((*tensor.Tensor).Exp)},
	"Log":        {f: math.Log, dev: method((*tensor.Tensor).Log)},
	"Neg":        {f: func(x float64) float64 { return -x }, dev: method((*tensor.Tensor).Neg)},
	"Abs":        {f: math.Abs, dev: method((*tensor.Tensor).Abs)},
	"Reciprocal": {f: func(x float64) float64 { return 1 / x }, dev: method((*tensor.Tensor).Reciprocal)},
	"Floor":      {f: math.Floor, dev: method((*tensor.Tensor).Floor)},
	"Ceil":       {f: math.Ceil, dev: method((*tensor.Tensor).Ceil)},
	"Sin":        {f: math.Sin, dev: method((*tensor.Tensor).Sin)},
	"Cos":        {f: math.Cos, dev: method((*tensor.Tensor).Cos)},
	"Softplus":   {dev: method((*tensor.Tensor).Softplus)},
	"Sign":       {f: func(x float64) float64 { return boolF(x > 0) - boolF(x < 0) }, dev: method((*tensor.Tensor).Sign)},
	"Not":        {f: func(x float64) float64 { return boolF(x == 0) }, dev: method((*tensor.Tensor).Not)},
	"LeakyRelu": {dev: func(c *call, t *tensor.Tensor) *tensor.Tensor {
		return t.LeakyRelu(c.n.attrFloat("alpha", 0.01))
	}},
	"Elu": {dev: func(c *call, t *tensor.Tensor) *tensor.Tensor { return t.Elu(c.n.attrFloat("alpha", 1)) }},
	"Gelu": {dev: func(c *call, t *tensor.Tensor) *tensor.Tensor {
		if c.n.attrString("approximate", "none") == "tanh" {
			return t.GeluTanh()
		}
		return t.Gelu()
	}},
	"HardSigmoid": {dev: func(c *call, t *tensor.Tensor) *tensor.Tensor {
		a, b := c.n.attrFloat("alpha", 0.2), c.n.attrFloat("beta", 0.5)
		return t.MulScalar(a).AddScalar(b).Clamp(0, 1)
	}},
}

// runUnary runs a one-input elementwise operation.
func runUnary(c *call) error {
	u := unaries[c.n.OpType]
	if err := c.need(1); err != nil {
		return err
	}
	x := c.in[0]
	if u.f != nil && c.allHost() {
		f := u.f
		if !x.dt.IsFloat() && c.n.OpType != "Not" && c.n.OpType != "Neg" && c.n.OpType != "Abs" &&
			c.n.OpType != "Relu" && c.n.OpType != "Sign" {
			return fmt.Errorf("%v input", x.dt)
		}
		h, err := hostMap(x.dt, func(v []float64) float64 { return f(v[0]) }, c.h(0))
		if err != nil {
			return err
		}
		c.setHost(h)
		return nil
	}
	c.setDev(x.dt, u.dev(c, c.t(0)))
	return nil
}

// runCast converts to the type attribute "to".
func runCast(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	to := DataType(c.n.attrInt("to", 0))
	if to.Size() == 0 {
		return c.unsupported("cast to %v", to)
	}
	if c.allHost() {
		x := c.h(0)
		out := newHost(to, x.shape)
		for k := range out.size() {
			if !x.dt.IsFloat() && !to.IsFloat() {
				out.i[k] = wrapInt(to, x.i[k])
			} else {
				out.set(k, x.at(k))
			}
		}
		c.setHost(out)
		return nil
	}
	dt, err := deviceType(to)
	if err != nil {
		return err
	}
	c.setDev(to, c.t(0).Cast(dt))
	return nil
}

// runWhere selects between two inputs by a condition.
func runWhere(c *call) error {
	if err := c.need(3); err != nil {
		return err
	}
	if c.in[1].dt != c.in[2].dt {
		return fmt.Errorf("inputs of types %v and %v", c.in[1].dt, c.in[2].dt)
	}
	dt := c.in[1].dt
	if c.allHost() {
		h, err := hostMap(dt, func(v []float64) float64 {
			if v[0] != 0 {
				return v[1]
			}
			return v[2]
		}, c.h(0), c.h(1), c.h(2))
		if err != nil {
			return err
		}
		if !dt.IsFloat() { // exact for 64-bit integers
			h, _ = hostMapInt(dt, func(v []int64) int64 {
				if v[0] != 0 {
					return v[1]
				}
				return v[2]
			}, c.h(0), c.h(1), c.h(2))
		}
		c.setHost(h)
		return nil
	}
	c.setDev(dt, tensor.Where(c.t(0), c.t(1), c.t(2)))
	return nil
}

// runClip limits values to [min, max] (attributes before opset 11, inputs
// from 11).
func runClip(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	var loT, hiT *tensor.Tensor
	if c.m.opset < 11 {
		lo, hi = c.n.attrFloat("min", lo), c.n.attrFloat("max", hi)
	} else {
		for i, p := range []*float64{&lo, &hi} {
			v := c.arg(i + 1)
			if v == nil {
				continue
			}
			if v.host != nil && v.host.size() == 1 {
				*p = v.host.at(0)
			} else if i == 0 {
				loT = c.t(1)
			} else {
				hiT = c.t(2)
			}
		}
	}
	x := c.t(0)
	var r *tensor.Tensor
	switch {
	case loT != nil || hiT != nil:
		if loT == nil && !math.IsInf(lo, -1) {
			loT = tensor.FullOf(c.m.dev, x.DType(), lo)
		}
		if hiT == nil && !math.IsInf(hi, 1) {
			hiT = tensor.FullOf(c.m.dev, x.DType(), hi)
		}
		r = x.ClampTensor(loT, hiT)
	case !math.IsInf(lo, -1) && !math.IsInf(hi, 1):
		r = x.Maximum(tensor.FullOf(c.m.dev, x.DType(), lo)).Minimum(tensor.FullOf(c.m.dev, x.DType(), hi))
	case !math.IsInf(lo, -1):
		r = x.ClampMin(lo)
	case !math.IsInf(hi, 1):
		r = x.ClampMax(hi)
	default:
		r = x
	}
	c.setDev(c.in[0].dt, r)
	return nil
}
