package tensor

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The backward rules of the operations declared in gradops.go, set on each
// operation. Each returns one gradient per recorded input (broadcast inputs
// are summed back to their shape by the engine).

func grads(g ...*Tensor) []*Tensor { return g }

func init() {
	opAdd.backward = func(c *gradCtx) []*Tensor { return grads(c.g, c.g) }
	opSub.backward = func(c *gradCtx) []*Tensor { return grads(c.g, c.g.Neg()) }
	opMul.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.in(1)), c.g.Mul(c.in(0))) }
	opDiv.backward = func(c *gradCtx) []*Tensor {
		b := c.in(1)
		return grads(c.g.Div(b), c.g.Mul(c.out()).Div(b).Neg())
	}
	opPow.backward = func(c *gradCtx) []*Tensor {
		// As in PyTorch: no gradient through a zero exponent (0·a^-1 is NaN
		// at a = 0), nor to the exponent where a = 0 and b ≥ 0 (a^b·log a
		// is 0·-Inf there, while a^b is flat in b at 0 or 1).
		a, b := c.in(0), c.in(1)
		zero := c.g.scalarLike(0)
		var ga, gb *Tensor
		if c.needs(0) {
			ga = Where(b.EqScalar(0), zero, c.g.Mul(b).Mul(a.Pow(b.SubScalar(1))))
		}
		if c.needs(1) {
			flat := a.EqScalar(0).LogicalAnd(b.Ge(b.scalarLike(0)))
			gb = Where(flat, zero, c.g.Mul(c.out()).Mul(a.Log()))
		}
		return grads(ga, gb)
	}
	minmax := func(c *gradCtx) []*Tensor {
		a, b := c.in(0), c.in(1)
		o := c.out()
		ma := a.Eq(o).Cast(Float32)
		mb := b.Eq(o).Cast(Float32)
		share := c.g.Div(ma.Add(mb).Maximum(OnesLike(ma))) // ties split evenly
		return grads(share.Mul(ma), share.Mul(mb))
	}
	opMaximum.backward, opMinimum.backward = minmax, minmax
	scalar := func(c *gradCtx) float64 { return c.node.params.(float64) }
	opAddScalar.backward = func(c *gradCtx) []*Tensor { return grads(c.g) }
	opSubScalar.backward = opAddScalar.backward
	opRSubScalar.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Neg()) }
	opMulScalar.backward = func(c *gradCtx) []*Tensor { return grads(c.g.MulScalar(scalar(c))) }
	opDivScalar.backward = func(c *gradCtx) []*Tensor { return grads(c.g.DivScalar(scalar(c))) }
	opPowScalar.backward = func(c *gradCtx) []*Tensor {
		v := scalar(c)
		if v == 0 { // x^0 is constant; v·x^-1 would be NaN at 0
			return grads(ZerosLike(c.g))
		}
		return grads(c.g.Mul(c.in(0).PowScalar(v - 1)).MulScalar(v))
	}
	opNeg.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Neg()) }
	opAbs.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.in(0).Sign())) }
	opExp.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.out())) }
	opLog.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Div(c.in(0))) }
	opSqrt.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Div(c.out()).MulScalar(0.5)) }
	opRsqrt.backward = func(c *gradCtx) []*Tensor {
		o := c.out()
		return grads(c.g.Mul(o.Mul(o).Mul(o)).MulScalar(-0.5))
	}
	opReciprocal.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.out().Mul(c.out())).Neg()) }
	opSin.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.in(0).Cos())) }
	opCos.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.in(0).Sin()).Neg()) }
	opTanh.backward = func(c *gradCtx) []*Tensor {
		o := c.out()
		return grads(c.g.Mul(o.Mul(o).RSubScalar(1)))
	}
	opSigmoid.backward = func(c *gradCtx) []*Tensor {
		o := c.out()
		return grads(c.g.Mul(o).Mul(o.RSubScalar(1)))
	}
	opRelu.backward = func(c *gradCtx) []*Tensor {
		if g := maskedMaxPoolGrad(c.out(), c.g); g != nil {
			return grads(g)
		}
		return grads(Where(c.out().GtScalar(0), c.g, ZerosLike(c.g)))
	}
	// Piecewise-constant ops have gradient zero wherever it exists, and
	// PyTorch gives zero at their jumps too.
	stepFn := func(c *gradCtx) []*Tensor { return grads(ZerosLike(c.g)) }
	opSign.backward, opFloor.backward, opCeil.backward = stepFn, stepFn, stepFn
	opClamp.backward = func(c *gradCtx) []*Tensor {
		// PyTorch passes the gradient where lo ≤ x ≤ hi, bounds included
		// (NaN gets none).
		b := c.node.params.([2]float64)
		x := c.in(0)
		inside := x.Ge(x.scalarLike(b[0])).LogicalAnd(x.Le(x.scalarLike(b[1])))
		return grads(Where(inside, c.g, c.g.scalarLike(0)))
	}
	opErf.backward = func(c *gradCtx) []*Tensor {
		x := c.in(0)
		return grads(c.g.Mul(x.Mul(x).Neg().Exp().MulScalar(2 / math.Sqrt(math.Pi))))
	}
	opGelu.backward = func(c *gradCtx) []*Tensor {
		return grads(c.g.Mul(c.in(0).unaryNoGrad(device.OpGeluErfGrad)))
	}
	opGeluTanh.backward = func(c *gradCtx) []*Tensor {
		return grads(c.g.Mul(c.in(0).unaryNoGrad(device.OpGeluTanhGrad)))
	}
	opSilu.backward = func(c *gradCtx) []*Tensor {
		x := c.in(0)
		s := x.Sigmoid()
		return grads(c.g.Mul(s.Mul(x.Mul(s.RSubScalar(1)).AddScalar(1))))
	}
	opSoftplus.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Mul(c.in(0).Sigmoid())) }
	opWhere.backward = func(c *gradCtx) []*Tensor {
		cond := c.in(0)
		z := ZerosLike(c.g)
		return grads(nil, Where(cond, c.g, z), Where(cond, z, c.g))
	}
	opFma.backward = func(c *gradCtx) []*Tensor {
		return grads(c.g.Mul(c.in(1)), c.g.Mul(c.in(0)), c.g)
	}
	opCast.backward = func(c *gradCtx) []*Tensor { return grads(c.g.Cast(c.node.inputs[0].DType())) }
	opContiguous.backward = func(c *gradCtx) []*Tensor { return grads(c.g) }
	registerReductionRules()
	registerViewRules()
	registerLayerRules()
}

func registerReductionRules() {
	// expandBack returns g (and out) shaped to broadcast against the input.
	expandBack := func(c *gradCtx, t *Tensor) *Tensor {
		a := c.node.params.(reduceAttrs)
		if !a.keep {
			for _, ax := range a.axes {
				t = t.Unsqueeze(ax)
			}
		}
		return t
	}
	opSum.backward = func(c *gradCtx) []*Tensor {
		return grads(expandBack(c, c.g).Expand(c.inShape(0)...))
	}
	opProd.backward = func(c *gradCtx) []*Tensor { return grads(expandBack(c, c.g).Mul(prodOfOthers(c))) }
	extreme := func(c *gradCtx) []*Tensor {
		x := c.in(0)
		a := c.node.params.(reduceAttrs)
		mask := x.Eq(expandBack(c, c.out())).Cast(Float32)
		count := mask.SumKeepDim(a.axes...)
		return grads(mask.Mul(expandBack(c, c.g)).Div(count))
	}
	opMax.backward, opMin.backward = extreme, extreme
	opSoftmax.backward = func(c *gradCtx) []*Tensor {
		axis := c.node.params.(int)
		y := c.out()
		if dx := rowSoftmaxGrad(y, c.g, axis, false); dx != nil {
			return grads(dx)
		}
		return grads(y.Mul(c.g.Sub(c.g.Mul(y).SumKeepDim(axis))))
	}
	opAttention.backward = func(c *gradCtx) []*Tensor {
		return fusedAttentionGrad(c.in(0), c.in(1), c.in(2), c.out(), c.g, c.node.params.(attnParams))
	}
	opNormalize.backward = func(c *gradCtx) []*Tensor {
		return grads(normalizeGrad(c.in(0), c.g, c.node.params.(float64)))
	}
	opLogSoftmax.backward = func(c *gradCtx) []*Tensor {
		axis := c.node.params.(int)
		if dx := rowSoftmaxGrad(c.out(), c.g, axis, true); dx != nil {
			return grads(dx)
		}
		return grads(c.g.Sub(c.out().Exp().Mul(c.g.SumKeepDim(axis))))
	}
}

func registerViewRules() {
	reshapeBack := func(c *gradCtx) []*Tensor { return grads(c.g.Reshape(c.in(0).shape...)) }
	opReshape.backward, opSqueeze.backward, opUnsqueeze.backward = reshapeBack, reshapeBack, reshapeBack
	opExpand.backward = func(c *gradCtx) []*Tensor { return grads(c.g) } // summed back by the engine
	opPermute.backward = func(c *gradCtx) []*Tensor {
		perm := c.node.params.([]int)
		inv := make([]int, len(perm))
		for i, p := range perm {
			inv[p] = i
		}
		return grads(c.g.Permute(inv...))
	}
	// Backward gathers the slices of one tensor and places their gradients
	// together (backward_slices.go); this rule places one alone.
	opSlice.backward = func(c *gradCtx) []*Tensor {
		return grads(scatterSliceGrad(c.inShape(0), c.node.params.(sliceParams), c.g))
	}
	opGather.backward = func(c *gradCtx) []*Tensor {
		p := c.node.params.(gatherParams)
		if g := pickGrad(p, c.in(1), c.g); g != nil {
			return grads(g, nil)
		}
		return grads(ScatterAdd(p.inShape, p.dim, c.in(1), c.g), nil)
	}
	opScatterAdd.backward = func(c *gradCtx) []*Tensor {
		p := c.node.params.(gatherParams)
		return grads(nil, nil, c.g.Gather(p.dim, c.in(1)))
	}
	opCumsum.backward = func(c *gradCtx) []*Tensor {
		// Each running sum reads every element up to it along the last
		// axis, so each element's gradient sums the output gradients from
		// it on: the running sums of the reversed gradient, reversed.
		return grads(c.g.Flip(-1).Cumsum(-1).Flip(-1))
	}
	opCat.backward = func(c *gradCtx) []*Tensor {
		starts := c.node.params.([][]int)
		out := make([]*Tensor, len(c.node.inputs))
		for i, in := range c.node.inputs {
			g := c.g
			for a, at := range starts[i] {
				if in.shape[a] != g.shape[a] {
					g = g.Narrow(a, at, in.shape[a])
				}
			}
			out[i] = g
		}
		return out
	}
}

func registerLayerRules() {
	opMatMul.backward = func(c *gradCtx) []*Tensor {
		a, b := c.in(0), c.in(1)
		var ga, gb *Tensor
		if c.needs(0) {
			ga = c.g.MatMul(b.Transpose(-1, -2)) // folded over a broadcast matrix's batch by MatMul
		}
		if c.needs(1) {
			gb = matmulGradB(a, b, c.g)
		}
		return grads(ga, gb)
	}
	conv := func(c *gradCtx) []*Tensor {
		p := c.node.params.(convAttrs)
		x, w := c.in(0), c.in(1)
		var gx, gw *Tensor
		if c.needs(0) {
			gx = convNode(device.ConvBackwardInput, p.geom, c.g, w)
		}
		if c.needs(1) {
			gw = convNode(device.ConvBackwardWeight, p.geom, c.g, x)
		}
		return grads(gx, gw)
	}
	opConv1d.backward, opConv2d.backward, opConv3d.backward = conv, conv, conv
	// A transposed convolution is its convolution's input gradient: its
	// input's gradient is that convolution, its weight's the weight
	// gradient with the roles of the two activations swapped.
	convT := func(c *gradCtx) []*Tensor {
		p := c.node.params.(convAttrs)
		x, w := c.in(0), c.in(1)
		var gx, gw *Tensor
		if c.needs(0) {
			gx = convNode(device.ConvForward, p.geom, c.g, w)
		}
		if c.needs(1) {
			gw = convNode(device.ConvBackwardWeight, p.geom, x, c.g)
		}
		return grads(gx, gw)
	}
	opConvTranspose1d.backward, opConvTranspose2d.backward, opConvTranspose3d.backward = convT, convT, convT
	pool := func(c *gradCtx) []*Tensor {
		fwd := c.node.params.(*node)
		a := fwd.attrs.(poolAttrs)
		a.backward = true
		var idx *node
		if a.op == device.PoolMax {
			idx = fwd
		}
		return grads(poolNode(a, c.g, idx))
	}
	opMaxPool2d.backward, opAvgPool2d.backward, opAdaptiveAvgPool2d.backward = pool, pool, pool
	opMaxPool1d.backward, opMaxPool3d.backward, opAvgPool1d.backward, opAvgPool3d.backward = pool, pool, pool, pool
}

// pickGrad is the gradient of a Gather that picks one entry per line along
// p.dim (the index has size 1 there and the input's size elsewhere, as in a
// classifier's loss): each input position receives the output gradient of
// its line where the index names it, else zero. Unlike the general
// scatter-add it is one elementwise expression, fused with its consumers.
// It returns nil for other gathers.
func pickGrad(p gatherParams, index, g *Tensor) *Tensor {
	if index.shape[p.dim] != 1 {
		return nil
	}
	for d, n := range p.inShape {
		if d != p.dim && index.shape[d] != n {
			return nil
		}
	}
	shape := make([]int, len(p.inShape))
	for i := range shape {
		shape[i] = 1
	}
	shape[p.dim] = p.inShape[p.dim]
	pos := Arange(g.Device(), 0, float64(p.inShape[p.dim]), 1).Cast(Int32).Reshape(shape...)
	return Where(pos.Eq(index), g, g.scalarLike(0))
}

// prodOfOthers is the derivative of a product with respect to each of its
// factors: the product of the other factors of its reduction. out/x would
// divide by zero where x is a factor of zero, so it is computed from the
// product of the nonzero factors p and the number of zero factors z: p/x
// where z = 0, p at the zero where z = 1, and 0 elsewhere.
func prodOfOthers(c *gradCtx) *Tensor {
	a := c.node.params.(reduceAttrs)
	x := c.in(0)
	isZero := x.EqScalar(0)
	zero, one := x.scalarLike(0), x.scalarLike(1)
	zeros := isZero.Cast(Float32).SumKeepDim(a.axes...)
	p := Where(isZero, one, x).reduce(opProd, device.ReduceProd, a.axes, true)
	atZero := Where(zeros.EqScalar(1), p, zero)
	elsewhere := Where(zeros.EqScalar(0), p.Div(x), zero)
	return Where(isZero, atZero, elsewhere)
}

// broadcastMatrix reports whether b is one matrix (any batch dimensions of
// size 1) that the product a @ b broadcasts over a's batch of several, both
// holding elements.
func broadcastMatrix(a, b *Tensor) bool {
	batchOf := func(t *Tensor) int { return device.NumElements(t.shape[:t.Dim()-2]) }
	return batchOf(b) == 1 && batchOf(a) > 1 && a.NumElements() > 0 && b.NumElements() > 0
}

// matmulGradB is the gradient of b in the product a @ b whose output's
// gradient is g. When b is one matrix broadcast over a's batch (a layer's
// weight applied to [batch, length, features]), the batch's products and
// their sum are one product over the rows of every batch element:
// a's rows as [rows, k], transposed, times g's as [rows, n]. Otherwise it
// is aᵀ @ g, summed over broadcast dimensions by Backward.
func matmulGradB(a, b, g *Tensor) *Tensor {
	if !broadcastMatrix(a, b) {
		return a.Transpose(-1, -2).MatMul(g)
	}
	k, n := a.shape[a.Dim()-1], b.shape[b.Dim()-1]
	return a.Reshape(-1, k).T().MatMul(g.Reshape(-1, n)).Reshape(b.shape...)
}
