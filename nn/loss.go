package nn

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor"
)

// Reduction says how a loss combines its per-element values.
type Reduction uint8

// The reductions. The zero value, Mean, is PyTorch's default.
const (
	Mean Reduction = iota // the average over elements (or samples)
	Sum                   // the sum
	None                  // no reduction: one value per element (or sample)
)

// reduce applies r to per-element losses.
func (r Reduction) reduce(l *tensor.Tensor) *tensor.Tensor {
	switch r {
	case Mean:
		return l.Mean()
	case Sum:
		return l.Sum()
	case None:
		return l
	}
	usage("Loss", "unknown reduction %d", r)
	return nil
}

// CrossEntropyLoss is torch.nn.CrossEntropyLoss over logits [N, C, d...]
// (class dimension 1). The target is either Int32 class indices [N, d...]
// or Float32 class probabilities of the logits' shape. The per-sample loss is
// -log_softmax(logits)[target], computed stably from LogSoftmax and a
// gather; with LabelSmoothing ε it is (1-ε) times that plus ε times the mean
// of -log_softmax over the classes.
//
// Weight ([C], nil for all ones) and Ignore/IgnoreIndex are torch's weight
// and ignore_index, as in NLLLoss: with class targets a sample's loss is
// weighed by its class's weight (the smoothing term by each class's), Mean
// divides by the counted samples' weights, and ignored samples contribute
// nothing; with probability targets each class's term is weighed, Mean
// divides by the number of samples, and Ignore is refused (PyTorch applies
// ignore_index to class targets only).
type CrossEntropyLoss struct {
	LabelSmoothing float64
	Weight         *tensor.Tensor
	IgnoreIndex    int32
	Ignore         bool
	Reduction      Reduction
}

// CrossEntropy is CrossEntropyLoss{} (no smoothing, mean over samples).
func CrossEntropy(logits, target *tensor.Tensor) *tensor.Tensor {
	return CrossEntropyLoss{}.Loss(logits, target)
}

// Loss returns the loss of logits against target.
func (c CrossEntropyLoss) Loss(logits, target *tensor.Tensor) *tensor.Tensor {
	const op = "CrossEntropy"
	if logits.Dim() < 2 {
		usage(op, "logits %v must be [N, C, ...]", logits.Shape())
	}
	if !(c.LabelSmoothing >= 0 && c.LabelSmoothing <= 1) {
		usage(op, "label smoothing %g outside [0, 1]", c.LabelSmoothing)
	}
	logp := logits.LogSoftmax(1)
	checkClassWeight(op, logp, c.Weight)
	if !target.DType().IsFloat() && (c.Weight != nil || c.Ignore) {
		return classLoss(op, logp, target, c.Weight, c.Ignore, c.IgnoreIndex, c.LabelSmoothing, c.Reduction)
	}
	if c.Ignore && target.DType().IsFloat() {
		usage(op, "ignore index applies to class-index targets only")
	}
	if c.Weight != nil {
		// Weighing each class's log-probability weighs both terms below.
		logp = logp.Mul(classAxis(c.Weight, logp.Dim()))
	}
	var per *tensor.Tensor
	if target.DType().IsFloat() {
		if !slices.Equal(target.Shape(), logits.Shape()) {
			usage(op, "probability target %v must have the logits' shape %v", target.Shape(), logits.Shape())
		}
		per = logp.Mul(target).Sum(1).Neg()
	} else {
		per = pickTargets(op, logp, target).Neg()
	}
	if eps := c.LabelSmoothing; eps > 0 {
		smooth := logp.Mean(1).Neg()
		per = per.MulScalar(1 - eps).Add(smooth.MulScalar(eps))
	}
	return c.Reduction.reduce(per)
}

// pickTargets returns logp[n, target[n, d...], d...] for Int32 class
// indices target [N, d...].
func pickTargets(op string, logp, target *tensor.Tensor) *tensor.Tensor {
	checkClassTarget(op, logp, target)
	return logp.Gather(1, target.Unsqueeze(1)).Squeeze(1)
}

// checkClassTarget refuses a target that is not Int32 class indices
// [N, d...] for input [N, C, d...].
func checkClassTarget(op string, logp, target *tensor.Tensor) {
	want := slices.Delete(logp.Shape(), 1, 2)
	if target.DType() != tensor.Int32 || !slices.Equal(target.Shape(), want) {
		usage(op, "target must be Int32 class indices of shape %v for input %v, got %s %v",
			want, logp.Shape(), target.DType(), target.Shape())
	}
}

// NLLLoss is torch.nn.NLLLoss: -weight[target[n]]·input[n, target[n]] for
// log-probabilities input [N, C, d...] and Int32 targets [N, d...]. Weight
// ([C], nil for all ones) is torch's weight; Mean divides the weighted sum
// by the sum of the weights of the targets counted, as PyTorch does. With
// Ignore set, targets equal to IgnoreIndex (torch's ignore_index) contribute
// nothing and are not counted; the mean over no counted target is NaN, as in
// PyTorch. Unlike PyTorch, whose ignore_index is -100 by default, the zero
// value ignores nothing.
type NLLLoss struct {
	Weight      *tensor.Tensor
	IgnoreIndex int32
	Ignore      bool
	Reduction   Reduction
}

// NLL is NLLLoss{} (mean over samples).
func NLL(logp, target *tensor.Tensor) *tensor.Tensor { return NLLLoss{}.Loss(logp, target) }

// Loss returns the loss of log-probabilities logp against target.
func (l NLLLoss) Loss(logp, target *tensor.Tensor) *tensor.Tensor {
	if logp.Dim() < 2 {
		usage("NLL", "input %v must be [N, C, ...]", logp.Shape())
	}
	if l.Weight == nil && !l.Ignore {
		return l.Reduction.reduce(pickTargets("NLL", logp, target).Neg())
	}
	checkClassWeight("NLL", logp, l.Weight)
	return classLoss("NLL", logp, target, l.Weight, l.Ignore, l.IgnoreIndex, 0, l.Reduction)
}

// MSELoss is torch.nn.MSELoss: (input - target)², with broadcasting.
type MSELoss struct {
	Reduction Reduction
}

// MSE is MSELoss{} (mean over elements).
func MSE(input, target *tensor.Tensor) *tensor.Tensor { return MSELoss{}.Loss(input, target) }

// Loss returns the squared error of input against target.
func (l MSELoss) Loss(input, target *tensor.Tensor) *tensor.Tensor {
	d := input.Sub(target)
	return l.Reduction.reduce(d.Mul(d))
}

// BCEWithLogitsLoss is torch.nn.BCEWithLogitsLoss: binary cross-entropy of
// sigmoid(x) against targets y in [0, 1], computed stably as
// max(x, 0) - x*y + log(1 + exp(-|x|)). PosWeight (torch's pos_weight,
// broadcast against x, typically one value per class of the last dimension)
// weighs the positive term: (1-y)·x + (1 + (PosWeight-1)·y)·softplus(-x).
// Weight (torch's weight), when not nil, multiplies each element's loss.
type BCEWithLogitsLoss struct {
	Weight, PosWeight *tensor.Tensor
	Reduction         Reduction
}

// BCEWithLogits is BCEWithLogitsLoss{} (mean over elements).
func BCEWithLogits(x, y *tensor.Tensor) *tensor.Tensor { return BCEWithLogitsLoss{}.Loss(x, y) }

// Loss returns the loss of logits x against targets y.
func (l BCEWithLogitsLoss) Loss(x, y *tensor.Tensor) *tensor.Tensor {
	if !slices.Equal(x.Shape(), y.Shape()) {
		usage("BCEWithLogits", "logits %v and targets %v differ in shape", x.Shape(), y.Shape())
	}
	// Maximum splits its gradient evenly at the tie x = 0, where the kinks of
	// max(x, 0) and log(1+exp(-|x|)) cancel, so the gradient is sigmoid(x) - y
	// there too.
	tail := x.Abs().Neg().Exp().AddScalar(1).Log() // log(1 + exp(-|x|))
	var per *tensor.Tensor
	if l.PosWeight == nil {
		per = x.Maximum(tensor.ZerosLike(x)).Sub(x.Mul(y)).Add(tail)
	} else {
		// softplus(-x) = max(-x, 0) + log(1 + exp(-|x|)).
		sp := x.Neg().Maximum(tensor.ZerosLike(x)).Add(tail)
		lw := l.PosWeight.SubScalar(1).Mul(y).AddScalar(1)
		per = y.RSubScalar(1).Mul(x).Add(lw.Mul(sp))
	}
	return l.Reduction.reduce(weighted(per, l.Weight))
}

// Accuracy returns the fraction of rows of logits [N, C] whose largest entry
// is at the Int32 target's index, as a Float32 scalar.
func Accuracy(logits, target *tensor.Tensor) *tensor.Tensor {
	if logits.Dim() != 2 || target.Dim() != 1 || target.Size(0) != logits.Size(0) {
		usage("Accuracy", "logits %v must be [N, C] and target %v [N]", logits.Shape(), target.Shape())
	}
	return logits.ArgMax(1).Eq(target).Cast(tensor.Float32).Mean()
}
