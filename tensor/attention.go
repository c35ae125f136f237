package tensor

import (
	"math"
	"slices"
)

// AttentionOptions are the optional parts of ScaledDotProductAttention.
type AttentionOptions struct {
	// Mask is nil, a Bool tensor (true = attend, as PyTorch's boolean
	// attn_mask) or a floating-point tensor added to the scores; it must
	// broadcast to the scores' shape [..., L, S].
	Mask *Tensor
	// Causal lets query i attend only keys j <= i (the mask's top-left
	// aligned lower triangle, as PyTorch's is_causal); with Mask both apply.
	Causal bool
	// Scale multiplies q@kᵀ; 0 means 1/sqrt(E), E the queries' last size.
	Scale float64
}

// ScaledDotProductAttention is softmax(q@kᵀ·scale + mask)@v over queries q
// [..., L, E], keys k [..., S, E] and values v [..., S, Ev], batch
// dimensions broadcast, giving [..., L, Ev]; it is PyTorch 2's
// F.scaled_dot_product_attention (math path, no dropout).
//
// Without a mask tensor, Float32 operands on a device with a fused
// attention kernel (device.Attender: the CPU backend) take it: each batch
// element's weights stay in cache and are recomputed for the gradient
// rather than stored. Otherwise attention is composed: masked-out scores
// become -Inf inside the fused program (the causal triangle is a
// comparison of row and column indices, stored once per call as an [L, S]
// Bool of at most 4 MiB, never as a -Inf mask), so a query whose every key
// is masked out gets NaN outputs, as PyTorch's softmax of an all -Inf row
// does: loud rather than an average of masked values. Gradients flow to q,
// k, v and a float mask.
func ScaledDotProductAttention(q, k, v *Tensor, o AttentionOptions) *Tensor {
	const op = "ScaledDotProductAttention"
	checkAttention(op, q, k, v, o)
	if o.Mask == nil {
		if out := fusedAttention(q, k, v, attentionScale(q, o), o.Causal); out != nil {
			return out
		}
	}
	return attentionWeights(q, k, o).MatMul(v)
}

// AttentionWeights is softmax(q@kᵀ·scale + mask) [..., L, S], the weights
// ScaledDotProductAttention applies to the values, for callers that transform
// them first (dropout) or return them (nn.MultiheadAttention). q, k and o
// are as there; a fully masked row is NaN.
func AttentionWeights(q, k *Tensor, o AttentionOptions) *Tensor {
	checkAttention("AttentionWeights", q, k, nil, o)
	return attentionWeights(q, k, o)
}

// attentionWeights computes the weights of checked operands.
func attentionWeights(q, k *Tensor, o AttentionOptions) *Tensor {
	scores := q.MatMul(k.Transpose(-2, -1)).MulScalar(attentionScale(q, o))
	// The masked scores are stored (computed in the product's epilogue)
	// rather than recomputed, mask and all, in each of softmax's passes.
	return maskScores(scores, o.Mask, o.Causal).Materialize().Softmax(-1)
}

// attentionScale is o.Scale, or 1/sqrt(E) for q [..., L, E] when it is 0.
func attentionScale(q *Tensor, o AttentionOptions) float64 {
	if o.Scale == 0 {
		return 1 / math.Sqrt(float64(q.Size(-1)))
	}
	return o.Scale
}

// checkAttention panics naming op unless q, k, v (nil for none) and the
// mask have the shapes, types and device attention needs.
func checkAttention(op string, q, k, v *Tensor, o AttentionOptions) {
	ts := []*Tensor{q, k}
	if v != nil {
		ts = append(ts, v)
	}
	for _, t := range ts {
		t.check(op)
		if t.Dim() < 2 || !t.DType().IsFloat() {
			usage(op, "q, k and v must be floating point with at least 2 dimensions, got %s %v", t.DType(), t.shape)
		}
	}
	sameDevice(op, q.n.dev, ts...)
	L, E := q.Size(-2), q.Size(-1)
	S := k.Size(-2)
	batches := [][]int{q.shape[:q.Dim()-2], k.shape[:k.Dim()-2]}
	if k.Size(-1) != E || v != nil && v.Size(-2) != S {
		usage(op, "q %v, k %v, v %v: want q [..., L, E], k [..., S, E], v [..., S, Ev]", q.shape, k.shape, shapeOf(v))
	}
	if v != nil {
		batches = append(batches, v.shape[:v.Dim()-2])
	}
	scoreShape := append(slices.Clone(broadcastShapes(op, batches...)), L, S)
	if m := o.Mask; m != nil {
		m.check(op)
		sameDevice(op, q.n.dev, m)
		if m.DType() != Bool && !m.DType().IsFloat() {
			usage(op, "mask must be Bool or floating point, got %s %v", m.DType(), m.shape)
		}
		if !slices.Equal(broadcastShapes(op, m.shape, scoreShape), scoreShape) {
			usage(op, "mask %v does not broadcast to the scores' shape %v", m.shape, scoreShape)
		}
	}
	if math.IsNaN(o.Scale) || math.IsInf(o.Scale, 0) {
		usage(op, "scale %g is not finite", o.Scale)
	}
}

// shapeOf is t's shape, or nil for a nil tensor (for messages).
func shapeOf(t *Tensor) []int {
	if t == nil {
		return nil
	}
	return t.shape
}

// maxStoredTriangle is the largest causal triangle, in elements (bytes),
// that maskScores stores; a larger one is computed inside the masking
// kernel from row and column indices, so memory stays bounded for long
// sequences.
const maxStoredTriangle = 1 << 22

// maskScores applies a boolean or additive mask and the causal triangle to
// scores [..., L, S]; masked-out entries become -Inf.
func maskScores(scores, mask *Tensor, causal bool) *Tensor {
	var keep *Tensor // Bool, true where a score is kept
	if mask != nil && mask.DType() == Bool {
		keep = mask
	} else if mask != nil {
		scores = scores.Add(mask)
	}
	if causal {
		L, S := scores.Size(-2), scores.Size(-1)
		d := scores.n.dev
		rows := Arange(d, 0, float64(L), 1).Unsqueeze(1) // [L, 1]
		cols := Arange(d, 0, float64(S), 1).Unsqueeze(0) // [1, S]
		tri := rows.Ge(cols)
		if L*S <= maxStoredTriangle {
			// Read once per score from an [L, S] Bool instead of
			// recomputed from positions for every score of every batch
			// and head, which costs the masking kernel several times more
			// (docs/gpt.md).
			tri = tri.Materialize()
		}
		if keep == nil {
			keep = tri
		} else {
			keep = keep.LogicalAnd(tri)
		}
	}
	if keep == nil {
		return scores
	}
	return Where(keep, scores, scores.scalarLike(math.Inf(-1)))
}
