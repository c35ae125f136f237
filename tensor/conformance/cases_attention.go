package conformance

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// attentionShapes are the operand shapes of one attention case.
type attentionShapes struct {
	q, k, v, mask []int
}

// attentionTol bounds an attention output: the scores carry a dot product's
// rounding into the softmax, and the output is a weighted sum of S values.
var attentionTol = tol{rel: 1e-4, abs: 1e-5}

// attentionCases check ScaledDotProductAttention against ref.Attention:
// plain, causal (square and rectangular), a boolean and a float mask with
// broadcast batch dimensions, a fully masked row (NaN), and gradients.
func attentionCases() []testCase {
	type fwd struct {
		shapes   attentionShapes
		boolMask bool
		causal   bool
		scale    float64
		l        layout
	}
	list := []fwd{
		{shapes: attentionShapes{q: []int{2, 3, 4, 8}, k: []int{2, 3, 6, 8}, v: []int{2, 3, 6, 5}}},
		{shapes: attentionShapes{q: []int{2, 7, 4}, k: []int{2, 7, 4}, v: []int{2, 7, 4}}, causal: true},
		{shapes: attentionShapes{q: []int{5, 4}, k: []int{9, 4}, v: []int{9, 3}}, causal: true, scale: 0.5, l: transposed},
		{shapes: attentionShapes{q: []int{2, 2, 4, 8}, k: []int{1, 2, 6, 8}, v: []int{2, 6, 5}, mask: []int{2, 1, 1, 6}}, boolMask: true},
		{shapes: attentionShapes{q: []int{2, 2, 4, 8}, k: []int{2, 2, 6, 8}, v: []int{2, 2, 6, 5}, mask: []int{2, 1, 4, 6}}, causal: true, boolMask: true},
		{shapes: attentionShapes{q: []int{3, 4, 8}, k: []int{3, 6, 8}, v: []int{3, 6, 5}, mask: []int{4, 6}}, scale: -0.7},
		{shapes: attentionShapes{q: []int{64, 32}, k: []int{80, 32}, v: []int{80, 16}}, causal: true},
	}
	var cs []testCase
	for _, c := range list {
		mask := "none"
		if c.shapes.mask != nil {
			mask = map[bool]string{true: "bool", false: "float"}[c.boolMask]
		}
		l := c.l
		if l.name == "" {
			l = contiguous
		}
		name := fmt.Sprintf("attention(causal=%v,mask=%s,scale=%g)", c.causal, mask, c.scale)
		shapes := shapeName(c.shapes.q) + "," + shapeName(c.shapes.k) + "," + shapeName(c.shapes.v)
		cs = append(cs, testCase{name: caseName(name, "float32", shapes, l.name), run: func(e *env) {
			q := e.input(tensor.Float32, normal, l, c.shapes.q...)
			k := e.input(tensor.Float32, normal, l, c.shapes.k...)
			v := e.input(tensor.Float32, normal, l, c.shapes.v...)
			var mt *tensor.Tensor
			var mr *ref.Array
			if c.shapes.mask != nil && c.boolMask {
				m := e.constant(tensor.Bool, attendingMask(e, c.shapes.mask), c.shapes.mask...)
				mt, mr = m.T, m.R
			} else if c.shapes.mask != nil {
				m := e.f32(normal, c.shapes.mask...)
				mt, mr = m.T, m.R
			}
			want := ref.Attention(q.R, k.R, v.R, mr, c.boolMask, c.causal, c.scale)
			e.expect("ScaledDotProductAttention", tensor.Float32, want, attentionTol, func() *tensor.Tensor {
				return tensor.ScaledDotProductAttention(q.T, k.T, v.T, tensor.AttentionOptions{Mask: mt, Causal: c.causal, Scale: c.scale})
			})
		}})
	}
	cs = append(cs, testCase{name: caseName("attention(fully_masked_row)", "float32", "3x4,5x4,5x2", "contiguous"), run: func(e *env) {
		q, k, v := e.randn(3, 4), e.randn(5, 4), e.randn(5, 2)
		vals := make([]float64, 15)
		for i := range vals {
			if i/5 != 1 && i%2 == 0 { // row 1 attends to nothing: NaN, as PyTorch
				vals[i] = 1
			}
		}
		m := e.constant(tensor.Bool, vals, 3, 5)
		want := ref.Attention(q.R, k.R, v.R, m.R, true, false, 0)
		e.expect("ScaledDotProductAttention", tensor.Float32, want, attentionTol, func() *tensor.Tensor {
			return tensor.ScaledDotProductAttention(q.T, k.T, v.T, tensor.AttentionOptions{Mask: m.T})
		})
	}})
	for _, op := range attentionGradOps() {
		cs = append(cs, testCase{name: "grad:" + op.name, run: func(e *env) { checkGrad(e, op) }})
	}
	return cs
}

// attendingMask draws a boolean mask that is mostly true and keeps the
// first key of every row, so no row is fully masked (even under causal).
func attendingMask(e *env, shape []int) []float64 {
	vals := make([]float64, numElements(shape))
	last := shape[len(shape)-1]
	for i := range vals {
		if i%last == 0 || e.rng.Float64() < 0.7 {
			vals[i] = 1
		}
	}
	return vals
}

// attentionGradOps differentiate attention with respect to q, k, v and a
// float mask, with and without the causal triangle, and with a given scale.
func attentionGradOps() []gradOp {
	var ops []gradOp
	for _, causal := range []bool{false, true} {
		ops = append(ops, gradOp{fmt.Sprintf("attention(causal=%v,float_mask)", causal),
			[]gradIn{in(2, 4, 3), in(2, 5, 3), in(2, 5, 2), in(4, 5)},
			func(t []*tensor.Tensor) *tensor.Tensor {
				return tensor.ScaledDotProductAttention(t[0], t[1], t[2], tensor.AttentionOptions{Mask: t[3], Causal: causal})
			},
			func(a []*ref.Array) *ref.Array { return ref.Attention(a[0], a[1], a[2], a[3], false, causal, 0) }})
	}
	ops = append(ops, gradOp{"attention(causal=true,scale=0.4):transposed",
		[]gradIn{in(2, 4, 3).laid(transposed), in(2, 5, 3), in(2, 5, 2)},
		func(t []*tensor.Tensor) *tensor.Tensor {
			return tensor.ScaledDotProductAttention(t[0], t[1], t[2], tensor.AttentionOptions{Causal: true, Scale: 0.4})
		},
		func(a []*ref.Array) *ref.Array { return ref.Attention(a[0], a[1], a[2], nil, false, true, 0.4) }})
	return ops
}
