package nn

import (
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor"
)

// Regression and probability losses beyond MSE, cross-entropy and NLL, each
// a composition of differentiable tensor ops (so it runs on every backend
// and has gradients without a rule of its own), with PyTorch's reductions.

// L1Loss is torch.nn.L1Loss: |input - target|, with broadcasting.
type L1Loss struct {
	Reduction Reduction
}

// L1 is L1Loss{} (mean over elements), torch.nn.functional.l1_loss.
func L1(input, target *tensor.Tensor) *tensor.Tensor { return L1Loss{}.Loss(input, target) }

// Loss returns the absolute error of input against target.
func (l L1Loss) Loss(input, target *tensor.Tensor) *tensor.Tensor {
	return l.Reduction.reduce(input.Sub(target).Abs())
}

// SmoothL1Loss is torch.nn.SmoothL1Loss: with d = |input - target|,
// 0.5·d²/Beta where d < Beta and d - 0.5·Beta elsewhere. Beta 0 is the L1
// loss, as in PyTorch; note that PyTorch's default Beta is 1 (SmoothL1 uses
// it), while this struct's zero value means 0.
type SmoothL1Loss struct {
	Beta      float64
	Reduction Reduction
}

// SmoothL1 is SmoothL1Loss{Beta: 1} (mean over elements), PyTorch's default
// torch.nn.functional.smooth_l1_loss.
func SmoothL1(input, target *tensor.Tensor) *tensor.Tensor {
	return SmoothL1Loss{Beta: 1}.Loss(input, target)
}

// Loss returns the smooth L1 error of input against target.
func (l SmoothL1Loss) Loss(input, target *tensor.Tensor) *tensor.Tensor {
	if !(l.Beta >= 0) {
		usage("SmoothL1Loss", "beta %g must be non-negative", l.Beta)
	}
	d := input.Sub(target).Abs()
	if l.Beta == 0 {
		return l.Reduction.reduce(d)
	}
	return l.Reduction.reduce(quadraticBelow(d, l.Beta, 0.5/l.Beta, 1))
}

// HuberLoss is torch.nn.HuberLoss: with d = |input - target|, 0.5·d² where
// d < Delta and Delta·(d - 0.5·Delta) elsewhere. Delta must be positive;
// PyTorch's default is 1 (Huber uses it).
type HuberLoss struct {
	Delta     float64
	Reduction Reduction
}

// Huber is HuberLoss{Delta: 1} (mean over elements), PyTorch's default
// torch.nn.functional.huber_loss.
func Huber(input, target *tensor.Tensor) *tensor.Tensor {
	return HuberLoss{Delta: 1}.Loss(input, target)
}

// Loss returns the Huber error of input against target.
func (l HuberLoss) Loss(input, target *tensor.Tensor) *tensor.Tensor {
	if !(l.Delta > 0) {
		usage("HuberLoss", "delta %g must be positive", l.Delta)
	}
	d := input.Sub(target).Abs()
	return l.Reduction.reduce(quadraticBelow(d, l.Delta, 0.5, l.Delta))
}

// quadraticBelow returns q·d² where d < t and s·(d - t/2) elsewhere, for
// d ≥ 0: the shared form of the smooth L1 and Huber losses.
func quadraticBelow(d *tensor.Tensor, t, q, s float64) *tensor.Tensor {
	return tensor.Where(d.LtScalar(t), d.Mul(d).MulScalar(q), d.SubScalar(t/2).MulScalar(s))
}

// BCELoss is torch.nn.BCELoss: -w·(y·log(x) + (1-y)·log(1-x)) for
// probabilities x and targets y of one shape, each log clamped below at -100
// as PyTorch does (so x = 0 or 1 gives a finite loss). Weight, when not nil,
// broadcasts against x.
type BCELoss struct {
	Weight    *tensor.Tensor
	Reduction Reduction
}

// BCE is BCELoss{} (mean over elements), torch.nn.functional.binary_cross_entropy.
func BCE(x, y *tensor.Tensor) *tensor.Tensor { return BCELoss{}.Loss(x, y) }

// Loss returns the loss of probabilities x against targets y.
func (l BCELoss) Loss(x, y *tensor.Tensor) *tensor.Tensor {
	sameShape("BCELoss", x, y)
	clampedLog := func(t *tensor.Tensor) *tensor.Tensor { return t.Log().Clamp(-100, math.Inf(1)) }
	pos := y.Mul(clampedLog(x))
	neg := y.RSubScalar(1).Mul(clampedLog(x.RSubScalar(1)))
	return l.Reduction.reduce(weighted(pos.Add(neg).Neg(), l.Weight))
}

// weighted multiplies per-element losses by w when w is not nil.
func weighted(per, w *tensor.Tensor) *tensor.Tensor {
	if w == nil {
		return per
	}
	return per.Mul(w)
}

// sameShape refuses inputs and targets of different shapes, as PyTorch's
// binary cross-entropies do.
func sameShape(op string, x, y *tensor.Tensor) {
	if !slices.Equal(x.Shape(), y.Shape()) {
		usage(op, "input %v and target %v differ in shape", x.Shape(), y.Shape())
	}
}

// KLDivLoss is torch.nn.KLDivLoss: for log-probabilities input and
// probabilities target, target·(log(target) - input), with 0 where target is
// 0 (PyTorch's xlogy; a negative target gives NaN as in PyTorch). With
// LogTarget the target holds log-probabilities and the loss is
// exp(target)·(target - input). Reduction Mean averages over all elements,
// as PyTorch's reduction="mean" does; BatchMean (PyTorch's "batchmean", the
// true KL divergence) sums and divides by the size of dimension 0 and
// overrides Reduction.
type KLDivLoss struct {
	LogTarget bool
	BatchMean bool
	Reduction Reduction
}

// KLDiv is KLDivLoss{} (mean over elements), torch.nn.functional.kl_div.
func KLDiv(input, target *tensor.Tensor) *tensor.Tensor { return KLDivLoss{}.Loss(input, target) }

// Loss returns the divergence of target from the distribution input holds
// the logarithms of.
func (l KLDivLoss) Loss(input, target *tensor.Tensor) *tensor.Tensor {
	var per *tensor.Tensor
	if l.LogTarget {
		per = target.Exp().Mul(target.Sub(input))
	} else {
		// log(1) = 0 stands in where target is 0, so that neither the value
		// nor the gradient there is 0·(-Inf).
		isZero := target.EqScalar(0)
		safe := tensor.Where(isZero, tensor.OnesLike(target), target)
		per = target.Mul(safe.Log().Sub(input))
	}
	if l.BatchMean {
		if per.Dim() == 0 {
			return per
		}
		return per.Sum().DivScalar(float64(per.Size(0)))
	}
	return l.Reduction.reduce(per)
}

// checkClassWeight refuses a class weight that is not [C] for input
// [N, C, ...].
func checkClassWeight(op string, logp, weight *tensor.Tensor) {
	if c := logp.Size(1); weight != nil && (weight.Dim() != 1 || weight.Size(0) != c) {
		usage(op, "weight %v must be [%d]", weight.Shape(), c)
	}
}

// classAxis reshapes a [C] weight to broadcast along dimension 1 of a
// rank-r tensor.
func classAxis(weight *tensor.Tensor, r int) *tensor.Tensor {
	shape := make([]int, r)
	for i := range shape {
		shape[i] = 1
	}
	shape[1] = weight.Size(0)
	return weight.Reshape(shape...)
}

// classLoss is the cross-entropy of log-probabilities logp against class
// targets with per-class weights, an ignored class and label smoothing eps,
// PyTorch's formula: (1-eps)·w[t]·(-logp[t]) + eps/C·Σ_c w[c]·(-logp[c]) per
// sample, 0 for ignored ones, and Mean dividing by Σ w[t] over the counted
// samples (NaN when none). eps 0 is NLLLoss.
func classLoss(op string, logp, target, weight *tensor.Tensor, ignore bool, ignoreIndex int32, eps float64, r Reduction) *tensor.Tensor {
	checkClassTarget(op, logp, target)
	t := target
	var w, hit *tensor.Tensor // each sample's weight; the ignored samples
	if ignore {
		// Ignored targets pick class 0 and are zeroed by a Where (not a
		// product, which would turn an -Inf there into NaN).
		hit = target.EqScalar(float64(ignoreIndex))
		t = tensor.Where(hit, tensor.ZerosLike(target), target)
		w = hit.Not().Cast(tensor.Float32)
	}
	per := pickTargets(op, logp, t).Neg()
	if weight != nil {
		cw := weight.IndexSelect(0, t.Flatten(0, -1)).Reshape(t.Shape()...)
		per = per.Mul(cw)
		w = weighted(cw, w)
	}
	if eps > 0 {
		all := logp
		if weight != nil {
			all = all.Mul(classAxis(weight, logp.Dim()))
		}
		smooth := all.Sum(1).Neg().MulScalar(eps / float64(logp.Size(1)))
		per = per.MulScalar(1 - eps).Add(smooth)
	}
	if hit != nil {
		per = tensor.Where(hit, tensor.ZerosLike(per), per)
	}
	if r == Mean {
		if w == nil {
			return per.Mean()
		}
		return per.Sum().Div(w.Sum())
	}
	return r.reduce(per)
}
