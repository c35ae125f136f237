package tensor

import (
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Reductions composed of the primitive ones (reduce.go) and elementwise
// ops: their gradients follow from the parts'.

// ProdKeepDim is Prod keeping the reduced axes with size one (torch.prod
// with keepdim=True).
func (t *Tensor) ProdKeepDim(axes ...int) *Tensor {
	return t.reduce(opProd, device.ReduceProd, axes, true)
}

// LogSumExp returns log(sum(exp(t))) over axes (all when none), dropping
// them, as torch.logsumexp: computed as m + log(sum(exp(t - m))) with m the
// maximum (0 where it is infinite), so it neither overflows nor underflows;
// over no elements it is -Inf.
func (t *Tensor) LogSumExp(axes ...int) *Tensor { return t.logSumExp(axes, false) }

// LogSumExpKeepDim is LogSumExp keeping the reduced axes with size one.
func (t *Tensor) LogSumExpKeepDim(axes ...int) *Tensor { return t.logSumExp(axes, true) }

func (t *Tensor) logSumExp(axes []int, keep bool) *Tensor {
	t.check("LogSumExp")
	x := t.asFloat()
	if t.reducedCount("LogSumExp", axes) == 0 {
		return reducedFull(x, axes, keep, math.Inf(-1))
	}
	m := x.MaxKeepDim(axes...).Detach() // a constant shift: the gradient is softmax
	m = Where(m.Abs().EqScalar(math.Inf(1)), ZerosLike(m), m)
	out := x.Sub(m).Exp().SumKeepDim(axes...).Log().Add(m)
	return dropAxes(out, axes, keep)
}

// Std is the standard deviation over axes (all when none) with the given
// correction (1 for PyTorch's default unbiased estimate, 0 for the
// population), as torch.std: the square root of Var.
// As in PyTorch its gradient where the deviation is zero is zero.
func (t *Tensor) Std(correction int, axes ...int) *Tensor {
	return rootZeroGrad(t.Var(correction, axes...), 2)
}

// StdKeepDim is Std keeping the reduced axes with size one.
func (t *Tensor) StdKeepDim(correction int, axes ...int) *Tensor {
	return rootZeroGrad(t.VarKeepDim(correction, axes...), 2)
}

// rootZeroGrad is s^(1/p) for s ≥ 0 with gradient zero where s is zero:
// the root's slope is infinite there, and PyTorch's norm and std define
// their gradient as zero. It takes the root of 1 there and selects 0.
func rootZeroGrad(s *Tensor, p float64) *Tensor {
	zero := s.EqScalar(0)
	root := Where(zero, OnesLike(s), s)
	if p == 2 {
		root = root.Sqrt()
	} else {
		root = root.PowScalar(1 / p)
	}
	return Where(zero, ZerosLike(s), root)
}

// Norm is the vector p-norm over axes (all when none), dropping them, as
// torch.linalg.vector_norm: (sum |t|^p)^(1/p) for p ≠ 0, the largest
// magnitude for +Inf, the smallest for -Inf and the number of nonzero
// elements for 0. As in PyTorch its gradient at a zero norm is zero.
func (t *Tensor) Norm(p float64, axes ...int) *Tensor { return t.norm(p, axes, false) }

// NormKeepDim is Norm keeping the reduced axes with size one.
func (t *Tensor) NormKeepDim(p float64, axes ...int) *Tensor { return t.norm(p, axes, true) }

func (t *Tensor) norm(p float64, axes []int, keep bool) *Tensor {
	t.check("Norm")
	if math.IsNaN(p) {
		usage("Norm", "p is NaN")
	}
	x := t.asFloat()
	if math.IsInf(p, 0) && t.reducedCount("Norm", axes) == 0 {
		usage("Norm", "the %g-norm over an empty axis is undefined (shape %v, axes %v)", p, t.shape, axes)
	}
	var out *Tensor
	switch {
	case math.IsInf(p, 1):
		out = x.Abs().MaxKeepDim(axes...)
	case math.IsInf(p, -1):
		out = x.Abs().MinKeepDim(axes...)
	case p == 0:
		out = x.Ne(x.scalarLike(0)).Cast(x.DType()).SumKeepDim(axes...)
	case p == 1:
		out = x.Abs().SumKeepDim(axes...)
	default:
		var s *Tensor
		if p == 2 {
			s = x.Mul(x).SumKeepDim(axes...)
		} else {
			s = x.Abs().PowScalar(p).SumKeepDim(axes...)
		}
		out = rootZeroGrad(s, p)
	}
	return dropAxes(out, axes, keep)
}

// Any reports, as Bool, whether any element over axes (all when none) is
// nonzero (NaN counts as nonzero), as torch.any; over no elements it is
// false.
func (t *Tensor) Any(axes ...int) *Tensor { return t.count("Any", axes, false, false) }

// AnyKeepDim is Any keeping the reduced axes with size one.
func (t *Tensor) AnyKeepDim(axes ...int) *Tensor { return t.count("Any", axes, true, false) }

// All reports, as Bool, whether every element over axes (all when none) is
// nonzero, as torch.all; over no elements it is true.
func (t *Tensor) All(axes ...int) *Tensor { return t.count("All", axes, false, true) }

// AllKeepDim is All keeping the reduced axes with size one.
func (t *Tensor) AllKeepDim(axes ...int) *Tensor { return t.count("All", axes, true, true) }

// count sums the nonzero (all=false) or zero (all=true) elements as Float32,
// exact enough for the comparison with zero that decides: a sum of
// non-negative terms is zero only when every term is.
func (t *Tensor) count(op string, axes []int, keep, all bool) *Tensor {
	t.check(op)
	var hit *Tensor
	if t.DType().IsFloat() {
		hit = t.Ne(t.scalarLike(0))
	} else {
		hit = t.Cast(Bool)
	}
	if all {
		hit = hit.Not()
	}
	var s *Tensor
	if keep {
		s = hit.Cast(Float32).SumKeepDim(axes...)
	} else {
		s = hit.Cast(Float32).Sum(axes...)
	}
	if all {
		return s.EqScalar(0)
	}
	return s.GtScalar(0)
}

// MaxDim returns the largest values along axis and their Int32 positions,
// as torch.max(input, dim, keepdim): the first of ties, and a NaN with its
// position where a line holds one. As in PyTorch the gradient goes to the
// returned position only.
func (t *Tensor) MaxDim(axis int, keep bool) (values, indices *Tensor) {
	return t.extremeDim("MaxDim", axis, keep, (*Tensor).ArgMaxKeepDim)
}

// MinDim is MaxDim for the smallest values, as torch.min(input, dim, keepdim).
func (t *Tensor) MinDim(axis int, keep bool) (values, indices *Tensor) {
	return t.extremeDim("MinDim", axis, keep, (*Tensor).ArgMinKeepDim)
}

func (t *Tensor) extremeDim(op string, axis int, keep bool, arg func(*Tensor, int) *Tensor) (values, indices *Tensor) {
	t.check(op)
	a := normAxis(op, axis, t.Dim())
	if t.Dim() == 0 {
		return t, FullOf(t.n.dev, Int32, 0)
	}
	idx := arg(t, a)
	values = t.Gather(a, idx)
	if !keep {
		return values.Squeeze(a), idx.Squeeze(a)
	}
	return values, idx
}

// asFloat returns t as its float type (Float32 for Int32 and Bool).
func (t *Tensor) asFloat() *Tensor { return t.Cast(floatType(t.DType())) }

// dropAxes removes the reduced axes (kept with size one) unless keep.
func dropAxes(t *Tensor, axes []int, keep bool) *Tensor {
	if keep {
		return t
	}
	return t.Squeeze(normAxes("reduce", axes, t.Dim())...)
}

// reducedFull is a reduction over no elements: v in the reduced shape.
func reducedFull(t *Tensor, axes []int, keep bool, v float64) *Tensor {
	shape := make([]int, 0, t.Dim())
	ax := normAxes("reduce", axes, t.Dim())
	for i, s := range t.shape {
		switch {
		case !slices.Contains(ax, i):
			shape = append(shape, s)
		case keep:
			shape = append(shape, 1)
		}
	}
	return FullOf(t.n.dev, t.DType(), v, shape...)
}
