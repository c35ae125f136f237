package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/gemm"
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
)

// splitDepth reports whether a product of m×n results over depth k runs as
// one serial product per worker over a part of the depth, the parts then
// added, rather than as one product split among the workers by results:
// with a long depth and few results (a weight gradient summed over every
// token of a batch), the parallel product synchronizes its workers at each
// of its many depth blocks, while the parts need no synchronization until
// the end, and adding them costs one pass over the small result.
func splitDepth(m, n, k, workers int) bool {
	return workers > 1 && k >= minSplitDepth && k >= 4*max(m, n) && m*n <= maxSplitResults
}

const (
	// minSplitDepth is the least depth splitDepth splits: a shorter one is
	// a few depth blocks, which the parallel product synchronizes cheaply.
	minSplitDepth = 1024
	// minDepthPart is the least depth of one part.
	minDepthPart = 256
	// maxSplitResults bounds the results of a split product, so that the
	// parts' scratch stays small and their sum cheap.
	maxSplitResults = 1 << 18
)

// productSplitDepth computes batch bi of j (threads > 1, see splitDepth)
// as d.workers serial products over parts of the depth, the first into the
// result and the others into scratch, then adds the parts.
func (d *Device) productSplitDepth(j *mmJob, bi int) error {
	a, lda, ta := j.a.matrix(bi, &d.scratch.f32c)
	b, ldb, tb := j.b.matrix(bi, &d.scratch.f32b)
	mn := j.m * j.n
	c := j.c[bi*mn : (bi+1)*mn]
	parts := min(d.workers, j.k/minDepthPart)
	part := roundUp((j.k+parts-1)/parts, 16)
	d.scratch.f32d = grow(d.scratch.f32d, (parts-1)*mn)
	partial := d.scratch.f32d
	err := d.parallelFor(parts, 1, func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			k0, k1 := min(p*part, j.k), min((p+1)*part, j.k)
			dst := c
			if p > 0 {
				dst = partial[(p-1)*mn : p*mn]
			}
			aOff, bOff := k0, k0*ldb // A stored m×k, B stored k×n
			if ta {
				aOff = k0 * lda // A stored k×m
			}
			if tb {
				bOff = k0 // B stored n×k
			}
			gemm.SgemmThreads(1, ta, tb, j.m, j.n, k1-k0, 1, a[aOff:], lda, b[bOff:], ldb, 0, dst, j.n)
		}
	})
	if err != nil {
		return err
	}
	for p := 1; p < parts; p++ {
		vec.Add(c, c, partial[(p-1)*mn:p*mn])
	}
	return nil
}
