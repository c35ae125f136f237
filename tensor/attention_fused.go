package tensor

import (
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// attnAttrs are the parameters of a fused attention node and of its
// gradient's node: the scale, the causal triangle, and the results packed
// one after another in the node's buffer.
type attnAttrs struct {
	scale  float64
	causal bool
	parts  [][]int // the results' shapes, in buffer order
	// strides and offsets are the results' layouts (nil: contiguous, one
	// after another): the forward's output is stored with the rows of its
	// innermost batch dimension interleaved (see headsInterleaved), the
	// gradients of same-shaped operands interleaved with each other (see
	// gradsInterleaved).
	strides [][]int
	offsets []int
}

// attnParams are what the fused attention's gradient rule needs beyond its
// inputs and output: the rows' log-sum-exp, the scale and the causal
// triangle.
type attnParams struct {
	lse    *Tensor
	scale  float64
	causal bool
}

// fusedAttention returns softmax(q@kᵀ·scale, causal)@v through the device's
// fused attention kernel (device.Attender), which keeps no weights, with its
// gradient recorded; or nil where the device lacks the kernel or the
// operands do not fit it (not all Float32, no keys, an empty result, or an
// infinite scale from E = 0), so the caller composes attention instead. q,
// k and v are checked by checkAttention.
func fusedAttention(q, k, v *Tensor, scale float64, causal bool) *Tensor {
	if _, ok := q.n.dev.raw.(device.Attender); !ok || math.IsInf(scale, 0) {
		return nil
	}
	for _, t := range []*Tensor{q, k, v} {
		if t.DType() != Float32 {
			return nil
		}
	}
	batch := broadcastShapes("ScaledDotProductAttention", q.shape[:q.Dim()-2], k.shape[:k.Dim()-2], v.shape[:v.Dim()-2])
	l, s, ev := q.Size(-2), k.Size(-2), v.Size(-1)
	if s == 0 || l == 0 || ev == 0 || device.NumElements(batch) == 0 {
		return nil
	}
	q = expandBatch(q, batch)
	k = expandBatch(k, batch)
	v = expandBatch(v, batch)
	outShape := append(slices.Clone(batch), l, ev)
	attrs := attnAttrs{scale: scale, causal: causal, parts: [][]int{
		outShape,                       // the output
		append(slices.Clone(batch), l), // the rows' log-sum-exp
	}, strides: [][]int{headsInterleaved(outShape), nil}}
	res := attentionNode(kindAttention, attrs, q.Detach(), k.Detach(), v.Detach())
	return recordGrad(opAttention, res[0], []*Tensor{q, k, v}, attnParams{lse: res[1], scale: scale, causal: causal})
}

// headsInterleaved returns the strides that store an output [B..., H, L,
// Ev] as [B..., L, H, Ev], the layout in which multi-head attention joins
// its heads (out.Permute(…, L, H, Ev).Reshape(…, L, H·Ev) is then a view,
// not a copy); with no batch dimension, contiguous strides.
func headsInterleaved(shape []int) []int {
	st := device.ContiguousStrides(shape)
	if r := len(shape); r >= 3 {
		st[r-2] = shape[r-3] * shape[r-1]
		st[r-3] = shape[r-1]
	}
	return st
}

// expandBatch broadcasts t's batch dimensions to batch (a view).
func expandBatch(t *Tensor, batch []int) *Tensor {
	if slices.Equal(t.shape[:t.Dim()-2], batch) {
		return t
	}
	return t.Expand(append(slices.Clone(batch), t.Size(-2), t.Size(-1))...)
}

// fusedAttentionGrad returns the gradients of fusedAttention's q, k and v
// for the output gradient g through the device's backward kernel.
func fusedAttentionGrad(q, k, v, out, g *Tensor, p attnParams) []*Tensor {
	attrs := attnAttrs{scale: p.scale, causal: p.causal, parts: [][]int{q.shape, k.shape, v.shape}}
	if q.Dim() >= 3 && slices.Equal(q.shape, k.shape) && slices.Equal(q.shape, v.shape) {
		st, offs := gradsInterleaved(q.shape)
		attrs.strides, attrs.offsets = [][]int{st, st, st}, offs
	}
	return attentionNode(kindAttentionGrad, attrs, q, k, v, out, p.lse, g.asFloat32())
}

// gradsInterleaved returns the layout that stores the gradients of three
// operands of one shape [B..., H, L, E] as one [B..., L, 3, H, E] array:
// their common strides and their offsets. Self-attention's query, key and
// value are heads of one projection's [B..., L, 3·H·E] output, and in this
// layout their gradients are that output's gradient, which joining them
// (Cat) then reads in place instead of copying.
func gradsInterleaved(shape []int) ([]int, []int) {
	r := len(shape)
	h, l, e := shape[r-3], shape[r-2], shape[r-1]
	st := make([]int, r)
	st[r-1], st[r-3], st[r-2] = 1, e, 3*h*e
	acc := l * 3 * h * e
	for i := r - 4; i >= 0; i-- {
		st[i] = acc
		acc *= shape[i]
	}
	return st, []int{0, h * e, 2 * h * e}
}

// attentionNode records a node of kind (kindAttention or kindAttentionGrad)
// over ins, whose results (of the shapes attrs.parts) lie one after another
// in one Float32 buffer, and returns a tensor viewing each result.
func attentionNode(kind nodeKind, attrs attnAttrs, ins ...*Tensor) []*Tensor {
	d := ins[0].n.dev
	srcs := make([]src, len(ins))
	for i, t := range ins {
		srcs[i] = src{n: t.n, v: t.view()}
	}
	total := 0
	for _, p := range attrs.parts {
		total += device.NumElements(p)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.newNode(kind, Float32, []int{total}, srcs)
	n.attrs = attrs
	res := make([]*Tensor, len(attrs.parts))
	for i, p := range attrs.parts {
		res[i] = wrap(n, view{shape: p, strides: attrs.resultStrides(i), offset: attrs.resultOffset(i)})
	}
	return res
}

// runAttention computes a fused attention node or its gradient's.
func (d *Device) runAttention(n *node) error {
	views := make([]device.View, len(n.srcs))
	for i, s := range n.srcs {
		v, err := d.realizeSrc(s)
		if err != nil {
			return err
		}
		views[i] = v
	}
	blk, err := d.alloc(Float32, n.numel())
	if err != nil {
		return err
	}
	a := n.attrs.(attnAttrs)
	results := make([]device.View, len(a.parts))
	for i, p := range a.parts {
		results[i] = device.View{Buf: blk.Buf, DType: Float32, Offset: a.resultOffset(i), Shape: p, Strides: a.resultStrides(i)}
	}
	att := d.raw.(device.Attender)
	var run func() error
	op := "attention"
	if n.kind == kindAttention {
		k := device.AttentionKernel{Q: views[0], K: views[1], V: views[2], Scale: a.scale, Causal: a.causal,
			Out: results[0], LSE: results[1]}
		run = func() error { return att.Attention(&k) }
	} else {
		op = "attention_backward"
		k := device.AttentionBackwardKernel{Q: views[0], K: views[1], V: views[2], Out: views[3], LSE: views[4], GradOut: views[5],
			Scale: a.scale, Causal: a.causal, GradQ: results[0], GradK: results[1], GradV: results[2]}
		run = func() error { return att.AttentionBackward(&k) }
	}
	if err := d.launch(op, "attention", []string{op}, len(n.srcs), len(results), run); err != nil {
		d.pool.Free(blk)
		return err
	}
	n.block = blk
	return nil
}

// resultOffset returns the offset of result i in the node's buffer.
func (a attnAttrs) resultOffset(i int) int {
	if a.offsets != nil {
		return a.offsets[i]
	}
	off := 0
	for _, p := range a.parts[:i] {
		off += device.NumElements(p)
	}
	return off
}

// resultStrides returns the strides of result i.
func (a attnAttrs) resultStrides(i int) []int {
	if i < len(a.strides) && a.strides[i] != nil {
		return a.strides[i]
	}
	return device.ContiguousStrides(a.parts[i])
}
