package nn

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor"
)

// MultiheadAttention is torch.nn.MultiheadAttention (same key and value
// sizes as the embedding): queries, keys and values are projected by
// in_proj_weight [3E, E] and in_proj_bias [3E], split into Heads heads of
// E/Heads values, attended with ScaledDotProductAttention, dropped out with
// probability Dropout in training, and recombined by out_proj. Its state is
// "in_proj_weight", "in_proj_bias", "out_proj.weight" and "out_proj.bias"
// (no biases with NoBias), so PyTorch's state_dict loads as it is.
//
// Inputs are [L, N, E] (sequence first, PyTorch's default), [N, L, E] with
// BatchFirst, or unbatched [L, E].
type MultiheadAttention struct {
	InProjWeight *tensor.Tensor
	InProjBias   *tensor.Tensor // nil with NoBias
	OutProj      *Linear
	Embed, Heads int
	// Dropout is the probability of zeroing an attention weight in training.
	Dropout float64
	// BatchFirst says inputs are [N, L, E] rather than [L, N, E].
	BatchFirst bool
	drop       *Dropout
}

// AttendOptions are the optional inputs of MultiheadAttention.Attend, with
// PyTorch's meanings.
type AttendOptions struct {
	// KeyPaddingMask [N, S] (or [S] unbatched): Bool true marks a key to
	// ignore; a float mask is added to the scores.
	KeyPaddingMask *tensor.Tensor
	// AttnMask [L, S] or [N*Heads, L, S]: Bool true marks a pair that may
	// not attend (the opposite of tensor.AttentionOptions.Mask); a float
	// mask is added to the scores.
	AttnMask *tensor.Tensor
	// Causal forbids query i to attend keys j > i (as an upper-triangular
	// -Inf AttnMask would), without storing a mask.
	Causal bool
	// NeedWeights asks for the attention weights, averaged over heads
	// ([N, L, S]) unless PerHeadWeights ([N, Heads, L, S]).
	NeedWeights, PerHeadWeights bool
}

// NewMultiheadAttention returns attention over embed features split into
// heads heads (heads must divide embed), initialized as PyTorch does:
// in_proj_weight Xavier-uniform, out_proj.weight as a Linear's, biases zero.
// Options: WithGenerator, NoBias.
func NewMultiheadAttention(dev *tensor.Device, embed, heads int, opts ...Option) *MultiheadAttention {
	c := configure("MultiheadAttention", optGenerator|optNoBias, opts)
	if embed < 1 || heads < 1 || embed%heads != 0 {
		usage("MultiheadAttention", "embed size %d must be a positive multiple of the %d heads", embed, heads)
	}
	m := &MultiheadAttention{Embed: embed, Heads: heads, drop: NewDropout(0)}
	m.InProjWeight = newParameter("MultiheadAttention", XavierUniform(dev, c.gen, 1, 3*embed, embed))
	linOpts := []Option{}
	if c.gen != nil {
		linOpts = append(linOpts, WithGenerator(c.gen))
	}
	if c.noBias {
		linOpts = append(linOpts, NoBias())
	} else {
		m.InProjBias = newParameter("MultiheadAttention", tensor.Zeros(dev, 3*embed))
	}
	m.OutProj = NewLinear(dev, embed, embed, linOpts...)
	if m.OutProj.Bias != nil { // PyTorch draws it, then zeroes it
		m.OutProj.Bias.Release()
		m.OutProj.Bias = newParameter("MultiheadAttention", tensor.Zeros(dev, embed))
	}
	return m
}

// Forward is self-attention of x with no mask, returning the output only.
func (m *MultiheadAttention) Forward(x *tensor.Tensor) *tensor.Tensor {
	out, _ := m.Attend(x, x, x, AttendOptions{})
	return out
}

// Attend attends query [L, N, E] to key and value [S, N, E] (batch first
// [N, L, E] and [N, S, E] with BatchFirst, or unbatched [L, E] and [S, E]) and
// returns the output, shaped as query, and the weights when o.NeedWeights
// (else nil). A query whose keys are all masked gives NaN, as in PyTorch.
func (m *MultiheadAttention) Attend(query, key, value *tensor.Tensor, o AttendOptions) (out, weights *tensor.Tensor) {
	const op = "MultiheadAttention"
	batched := query.Dim() == 3
	for _, t := range []*tensor.Tensor{query, key, value} {
		if t.Dim() != query.Dim() || (t.Dim() != 2 && t.Dim() != 3) || t.Size(-1) != m.Embed {
			usage(op, "query %v, key %v, value %v must all be [L, N, %d], [N, L, %d] or [L, %d]",
				query.Shape(), key.Shape(), value.Shape(), m.Embed, m.Embed, m.Embed)
		}
	}
	q, k, v := m.batchFirst(query), m.batchFirst(key), m.batchFirst(value)
	if k.Size(0) != q.Size(0) || k.Size(1) != v.Size(1) || v.Size(0) != q.Size(0) {
		usage(op, "query %v, key %v, value %v: batch sizes or key and value lengths differ", query.Shape(), key.Shape(), value.Shape())
	}
	if !(m.Dropout >= 0 && m.Dropout <= 1) {
		usage(op, "dropout probability %g outside [0, 1]", m.Dropout)
	}
	m.drop.P = m.Dropout
	n, l, s := q.Size(0), q.Size(1), k.Size(1)
	qp, kp, vp := m.project(query, key, value, q, k, v)
	mask := m.mask(o, batched, n, l, s)
	ao := tensor.AttentionOptions{Mask: mask, Causal: o.Causal}
	var y, w *tensor.Tensor
	if !o.NeedWeights && !m.drop.active() {
		// Without weights to return or drop out, attention may run as one
		// fused computation that never stores them.
		y = tensor.ScaledDotProductAttention(m.heads(qp), m.heads(kp), m.heads(vp), ao)
	} else {
		w = m.drop.Forward(tensor.AttentionWeights(m.heads(qp), m.heads(kp), ao))
		y = w.MatMul(m.heads(vp))
	}
	y = y.Permute(0, 2, 1, 3).Reshape(n, l, m.Embed)
	y = m.OutProj.Forward(y)
	if o.NeedWeights && !o.PerHeadWeights {
		weights = w.Mean(1)
	} else if o.NeedWeights {
		weights = w
	}
	if !batched {
		y = y.Squeeze(0)
		if weights != nil {
			weights = weights.Squeeze(0)
		}
	} else if !m.BatchFirst {
		y = y.Transpose(0, 1)
	}
	return y, weights
}

// batchFirst views an input as [N, L, E].
func (m *MultiheadAttention) batchFirst(x *tensor.Tensor) *tensor.Tensor {
	switch {
	case x.Dim() == 2:
		return x.Unsqueeze(0)
	case m.BatchFirst:
		return x
	default:
		return x.Transpose(0, 1)
	}
}

// project applies the input projection; self-attention (one tensor for
// query, key and value) takes one product with the whole [3E, E] weight.
func (m *MultiheadAttention) project(query, key, value, q, k, v *tensor.Tensor) (qp, kp, vp *tensor.Tensor) {
	e := m.Embed
	if query == key && key == value {
		all := linear(q, m.InProjWeight, m.InProjBias)
		return all.Narrow(2, 0, e), all.Narrow(2, e, e), all.Narrow(2, 2*e, e)
	}
	part := func(x *tensor.Tensor, i int) *tensor.Tensor {
		var b *tensor.Tensor
		if m.InProjBias != nil {
			b = m.InProjBias.Narrow(0, i*e, e)
		}
		return linear(x, m.InProjWeight.Narrow(0, i*e, e), b)
	}
	return part(q, 0), part(k, 1), part(v, 2)
}

// linear is x @ wᵀ + b (b may be nil).
func linear(x, w, b *tensor.Tensor) *tensor.Tensor {
	y := x.MatMul(w.T())
	if b != nil {
		y = y.Add(b)
	}
	return y
}

// heads splits [N, L, E] into [N, Heads, L, E/Heads].
func (m *MultiheadAttention) heads(x *tensor.Tensor) *tensor.Tensor {
	return x.Reshape(x.Size(0), x.Size(1), m.Heads, m.Embed/m.Heads).Permute(0, 2, 1, 3)
}

// mask merges the key padding and attention masks into one mask for
// tensor.AttentionWeights over scores [N, Heads, L, S]: Bool (true =
// attend) when both are Bool or absent, else additive with -Inf where a
// Bool mask forbids.
func (m *MultiheadAttention) mask(o AttendOptions, batched bool, n, l, s int) *tensor.Tensor {
	const op = "MultiheadAttention"
	var keep, add *tensor.Tensor
	merge := func(t *tensor.Tensor) {
		if t.DType() == tensor.Bool {
			if t = t.Not(); keep == nil {
				keep = t
			} else {
				keep = keep.LogicalAnd(t)
			}
			return
		}
		if !t.DType().IsFloat() {
			usage(op, "masks must be Bool or floating point, got %s %v", t.DType(), t.Shape())
		}
		if add == nil {
			add = t
		} else {
			add = add.Add(t)
		}
	}
	if kp := o.KeyPaddingMask; kp != nil {
		want := []int{n, s}
		if !batched {
			want = []int{s}
		}
		if !sameInts(kp.Shape(), want) {
			usage(op, "key_padding_mask %v, want %v", kp.Shape(), want)
		}
		merge(kp.Reshape(n, 1, 1, s))
	}
	if am := o.AttnMask; am != nil {
		switch {
		case sameInts(am.Shape(), []int{l, s}):
			merge(am)
		case sameInts(am.Shape(), []int{n * m.Heads, l, s}):
			merge(am.Reshape(n, m.Heads, l, s))
		default:
			usage(op, "attn_mask %v, want [%d, %d] or [%d, %d, %d]", am.Shape(), l, s, n*m.Heads, l, s)
		}
	}
	switch {
	case add == nil:
		return keep
	case keep == nil:
		return add
	default:
		return tensor.Where(keep, add, tensor.Full(add.Device(), math.Inf(-1)))
	}
}

// sameInts reports whether a and b are equal.
func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// NamedParameters returns "in_proj_weight", "in_proj_bias" and out_proj's
// "weight" and "bias", in PyTorch's order.
func (m *MultiheadAttention) NamedParameters() []Named {
	ps := []Named{{"in_proj_weight", m.InProjWeight}}
	if m.InProjBias != nil {
		ps = append(ps, Named{"in_proj_bias", m.InProjBias})
	}
	return append(ps, Prefixed("out_proj", m.OutProj.NamedParameters())...)
}

// NamedBuffers returns nil: MultiheadAttention has no buffers.
func (m *MultiheadAttention) NamedBuffers() []Named { return nil }

// Train switches the dropout of attention weights on or off.
func (m *MultiheadAttention) Train(on bool) { m.drop.Train(on) }
