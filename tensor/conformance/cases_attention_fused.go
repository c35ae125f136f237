package conformance

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// headsOf lays a [N, H, L, Dh] operand out as the heads of a transformer's
// fused input projection: part `part` of three [N, L, H·Dh] blocks side by
// side in an [N, L, 3·H·Dh] buffer, reshaped and permuted (the views
// nn.MultiheadAttention hands to attention).
func headsOf(part int) layout {
	return layout{
		name: fmt.Sprintf("heads@%d", part),
		ok:   func(s []int) bool { return len(s) == 4 },
		base: func(s []int) []int { return []int{s[0], s[2], 3 * s[1] * s[3]} },
		view: func(x *tensor.Tensor, s []int) *tensor.Tensor {
			return x.Narrow(2, part*s[1]*s[3], s[1]*s[3]).Reshape(s[0], s[2], s[1], s[3]).Permute(0, 2, 1, 3)
		},
		ref: func(a *ref.Array, s []int) *ref.Array {
			return a.Narrow(2, part*s[1]*s[3], s[1]*s[3]).Reshape(s[0], s[2], s[1], s[3]).Permute(0, 2, 1, 3)
		},
	}
}

// fusedAttentionCases check attention without a mask tensor, which a device
// with a fused attention kernel (device.Attender) computes in one kernel
// per direction: query and key counts around the kernels' row blocks
// (larger and smaller than each other, with and without the causal
// triangle), broadcast batch dimensions, the transformer's head views,
// a NaN and an infinite query row, and the gradients of each form.
func fusedAttentionCases() []testCase {
	type fwd struct {
		q, k, v []int
		causal  bool
		scale   float64
		ls      [3]layout
	}
	heads := [3]layout{headsOf(0), headsOf(1), headsOf(2)}
	list := []fwd{
		{q: []int{1, 1}, k: []int{1, 1}, v: []int{1, 1}},
		{q: []int{3, 17, 33}, k: []int{3, 130, 33}, v: []int{3, 130, 5}, causal: true},
		{q: []int{3, 130, 33}, k: []int{3, 17, 33}, v: []int{3, 17, 9}, causal: true},
		{q: []int{100, 16}, k: []int{700, 16}, v: []int{700, 8}, causal: true},
		{q: []int{700, 8}, k: []int{50, 8}, v: []int{50, 3}, scale: 0.3},
		{q: []int{2, 1, 5, 8}, k: []int{1, 3, 7, 8}, v: []int{3, 7, 4}, causal: true},
		{q: []int{2, 4, 37, 16}, k: []int{2, 4, 37, 16}, v: []int{2, 4, 37, 16}, causal: true, ls: heads},
		{q: []int{3, 9, 12}, k: []int{3, 11, 12}, v: []int{3, 11, 6}, ls: [3]layout{transposed, strided, expanded}},
	}
	var cs []testCase
	for _, c := range list {
		ls := c.ls
		for i := range ls {
			if ls[i].name == "" {
				ls[i] = contiguous
			}
		}
		name := fmt.Sprintf("attention(no_mask,causal=%v,scale=%g)", c.causal, c.scale)
		shapes := shapeName(c.q) + "," + shapeName(c.k) + "," + shapeName(c.v)
		cs = append(cs, testCase{name: caseName(name, "float32", shapes, ls[0].name+","+ls[1].name+","+ls[2].name), run: func(e *env) {
			q := e.input(tensor.Float32, normal, ls[0], c.q...)
			k := e.input(tensor.Float32, normal, ls[1], c.k...)
			v := e.input(tensor.Float32, normal, ls[2], c.v...)
			want := ref.Attention(q.R, k.R, v.R, nil, false, c.causal, c.scale)
			e.expect("ScaledDotProductAttention", tensor.Float32, want, attentionTol, func() *tensor.Tensor {
				return tensor.ScaledDotProductAttention(q.T, k.T, v.T, tensor.AttentionOptions{Causal: c.causal, Scale: c.scale})
			})
		}})
	}
	for _, special := range []float64{math.NaN(), math.Inf(1)} {
		cs = append(cs, testCase{name: caseName(fmt.Sprintf("attention(no_mask,query_row=%v)", special), "float32", "2x6x40,2x9x40,2x9x3", "contiguous"), run: func(e *env) {
			vals := e.fill(tensor.Float32, normal, 2*6*40)
			vals[40*4+7] = special // batch 0, query 4: that row is NaN, the others exact
			q := e.inputOf(tensor.Float32, vals, contiguous, 2, 6, 40)
			k, v := e.randn(2, 9, 40), e.randn(2, 9, 3)
			want := ref.Attention(q.R, k.R, v.R, nil, false, false, 0)
			e.expect("ScaledDotProductAttention", tensor.Float32, want, attentionTol, func() *tensor.Tensor {
				return tensor.ScaledDotProductAttention(q.T, k.T, v.T, tensor.AttentionOptions{})
			})
		}})
	}
	for _, op := range fusedAttentionGradOps() {
		cs = append(cs, testCase{name: "grad:" + op.name, run: func(e *env) { checkGrad(e, op) }})
	}
	return cs
}

// fusedAttentionGradOps differentiate attention without a mask tensor:
// plain and causal with more and fewer queries than keys, a key and value
// shared by every batch element (their gradients summed over it), and the
// head views of a fused projection.
func fusedAttentionGradOps() []gradOp {
	attend := func(causal bool, scale float64) func(t []*tensor.Tensor) *tensor.Tensor {
		return func(t []*tensor.Tensor) *tensor.Tensor {
			return tensor.ScaledDotProductAttention(t[0], t[1], t[2], tensor.AttentionOptions{Causal: causal, Scale: scale})
		}
	}
	reference := func(causal bool, scale float64) func(a []*ref.Array) *ref.Array {
		return func(a []*ref.Array) *ref.Array { return ref.Attention(a[0], a[1], a[2], nil, false, causal, scale) }
	}
	return []gradOp{
		{"attention(no_mask)", []gradIn{in(2, 5, 4), in(2, 7, 4), in(2, 7, 3)}, attend(false, 0), reference(false, 0)},
		{"attention(no_mask,causal,more_queries)", []gradIn{in(9, 4), in(6, 4), in(6, 5).laid(transposed)}, attend(true, 0.6), reference(true, 0.6)},
		{"attention(no_mask,causal,fewer_queries)", []gradIn{in(2, 3, 4), in(2, 8, 4), in(2, 8, 2)}, attend(true, 0), reference(true, 0)},
		{"attention(no_mask,shared_keys)", []gradIn{in(3, 4, 5), in(1, 6, 5).laid(expanded), in(6, 2)}, attend(true, 0), reference(true, 0)},
		{"attention(no_mask,heads)", []gradIn{in(2, 2, 5, 3).laid(headsOf(0)), in(2, 2, 5, 3).laid(headsOf(1)), in(2, 2, 5, 3).laid(headsOf(2))}, attend(true, 0), reference(true, 0)},
	}
}
