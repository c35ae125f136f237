package tensor

import "math"

// Multinomial returns numSamples Int32 category indices drawn from each row
// of probs (1-D: one distribution; 2-D: one per row; weights need not sum to
// one), as torch.multinomial(probs, numSamples, replacement), from the
// device's stream. With replacement each sample is the argmax of
// log p + Gumbel noise (the Gumbel-max trick); without it the samples are the
// numSamples largest of one such key per category, in order (Gumbel-top-k),
// which draws successive samples in proportion to the remaining weights, as
// PyTorch does. The noise comes from Rand numbers, kept off 0 so that every
// key is finite. A row that PyTorch refuses (a negative, infinite or NaN
// weight, a zero sum, or without replacement fewer nonzero weights than
// numSamples) gives -1 in every sample, an index that Gather refuses.
func Multinomial(probs *Tensor, numSamples int, replacement bool) *Tensor {
	probs.check("Multinomial")
	return multinomial(probs, numSamples, replacement, func(shape []int) *Tensor { return Rand(probs.Device(), shape...) })
}

// Multinomial is the package's Multinomial drawing from g.
func (g *Generator) Multinomial(probs *Tensor, numSamples int, replacement bool) *Tensor {
	probs.check("Multinomial")
	return multinomial(probs, numSamples, replacement, func(shape []int) *Tensor { return g.Rand(probs.Device(), shape...) })
}

func multinomial(probs *Tensor, n int, replacement bool, rand func(shape []int) *Tensor) *Tensor {
	if probs.Dim() < 1 || probs.Dim() > 2 {
		usage("Multinomial", "probs must have 1 or 2 dimensions, got %v", probs.shape)
	}
	k := probs.shape[probs.Dim()-1]
	if k == 0 {
		usage("Multinomial", "probs %v has no categories", probs.shape)
	}
	if n <= 0 {
		usage("Multinomial", "numSamples %d must be positive", n)
	}
	if !replacement && n > k {
		usage("Multinomial", "cannot draw %d samples from %d categories without replacement", n, k)
	}
	p := probs.Detach().Cast(Float32)
	zero := p.scalarLike(0)
	valid := p.MinKeepDim(-1).Ge(zero).
		LogicalAnd(p.MaxKeepDim(-1).LtScalar(math.Inf(1))).
		LogicalAnd(p.SumKeepDim(-1).Gt(zero))
	logp := p.Log()
	var idx *Tensor
	if replacement {
		// Keys [..., n, k]: the row's log weights against n noise rows.
		shape := append(append([]int{}, p.shape[:p.Dim()-1]...), n, k)
		idx = logp.Unsqueeze(-2).Add(gumbel(rand(shape))).ArgMax(-1)
	} else {
		valid = valid.LogicalAnd(p.Gt(zero).Cast(Float32).SumKeepDim(-1).Ge(FullOf(p.Device(), Float32, float64(n))))
		_, idx = logp.Add(gumbel(rand(p.shape))).TopK(n, -1, true)
	}
	return Where(valid, idx, FullOf(p.Device(), Int32, -1))
}

// gumbel turns uniform [0, 1) numbers into standard Gumbel noise
// -log(-log u), with u = 0 replaced by 2^-25 so that the noise is finite.
func gumbel(u *Tensor) *Tensor {
	u = Where(u.EqScalar(0), u.scalarLike(0x1p-25), u)
	return u.Log().Neg().Log().Neg()
}
