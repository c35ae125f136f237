package ref

import "math"

// Attention is softmax(q@kᵀ·scale + mask)@v, PyTorch 2's
// F.scaled_dot_product_attention without dropout: a boolean mask (non-zero
// = attend) and the causal lower triangle (key j <= query i) set scores to
// -Inf, a float mask is added; scale 0 means 1/sqrt(E).
func Attention(q, k, v, mask *Array, boolMask, causal bool, scale float64) *Array {
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(q.shape[q.Dim()-1]))
	}
	s := Map(MatMul(q, k.Transpose(k.Dim()-2, k.Dim()-1)), func(x float64) float64 { return x * scale })
	negInf := Scalar(math.Inf(-1))
	if mask != nil && boolMask {
		s = Where(mask, s, negInf)
	} else if mask != nil {
		s = Add(s, mask)
	}
	if causal {
		L, S := s.shape[s.Dim()-2], s.shape[s.Dim()-1]
		tri := Ge(Arange(0, float64(L), 1).Unsqueeze(1), Arange(0, float64(S), 1).Unsqueeze(0))
		s = Where(tri, s, negInf)
	}
	return MatMul(Softmax(s, -1), v)
}
