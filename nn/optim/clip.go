package optim

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor"
)

// ClipGradNorm is torch.nn.utils.clip_grad_norm_: it computes the l2 norm of
// all the gradients of ps together and, when it exceeds maxNorm, scales every
// gradient by maxNorm/(norm + 1e-6). It returns the norm before clipping.
// Parameters without a gradient are skipped. A NaN or infinite norm is
// returned with an error and the gradients are left as they are (PyTorch's
// error_if_nonfinite), so a diverged step is never silently scaled by NaN.
// It reads the norm, so it waits for the gradients to be computed.
func ClipGradNorm(ps []*tensor.Tensor, maxNorm float64) (total float64, err error) {
	if !(maxNorm > 0) || math.IsInf(maxNorm, 0) {
		usage("ClipGradNorm", "max norm %g must be positive and finite", maxNorm)
	}
	var grads []*tensor.Tensor
	var sq *tensor.Tensor
	for _, p := range ps {
		g := p.Grad()
		if g == nil {
			continue
		}
		grads = append(grads, g)
		s := g.Detach().Cast(tensor.Float32).Mul(g.Detach().Cast(tensor.Float32)).Sum()
		if sq == nil {
			sq = s
		} else {
			sq = sq.Add(s)
		}
	}
	if sq == nil {
		return 0, nil
	}
	sum, err := sq.Item()
	if err != nil {
		return 0, fmt.Errorf("optim.ClipGradNorm: %w", err)
	}
	total = math.Sqrt(sum)
	if math.IsNaN(total) || math.IsInf(total, 0) {
		return total, fmt.Errorf("optim.ClipGradNorm: the gradients' norm is %g; they were not clipped", total)
	}
	coef := maxNorm / (total + 1e-6)
	if coef >= 1 {
		return total, nil
	}
	for _, g := range grads {
		g.Assign(g.Detach().MulScalar(coef).Cast(g.DType()))
	}
	return total, tensor.Realize(grads...)
}
