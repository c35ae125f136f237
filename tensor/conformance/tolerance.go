package conformance

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// tol bounds the error of one element: abs + rel*(|want| + scale), where
// scale (broadcast to the result's shape, or nil) carries the magnitude of
// the terms a value was computed from, for results that cancel.
type tol struct {
	rel, abs float64
	scale    *ref.Array
}

// exact demands equal values (NaN matching NaN).
var exact = tol{}

// f32 is the tolerance of a float32 elementwise result.
var f32 = tol{rel: 1e-5, abs: 1e-6}

// halfRatio is how much looser float16 and bfloat16 results may be: about two
// units in the last place where float32's tolerance is about 84.
var halfRatio = map[tensor.DType]float64{tensor.Float16: 100, tensor.BFloat16: 800}

// forDType widens t for a result stored in dt; exact stays exact.
func (t tol) forDType(dt tensor.DType) tol {
	if r, ok := halfRatio[dt]; ok && (t.rel > 0 || t.abs > 0) {
		t.rel, t.abs = max(t.rel, 1e-5)*r, max(t.abs, 1e-6)*r
	}
	return t
}

// withScale returns t with a per-element magnitude.
func (t tol) withScale(s *ref.Array) tol { t.scale = s; return t }

// sumTol is the tolerance of a sum of n terms whose squares sum (per output)
// to sq: rel*(|want| + sqrt(n)*sqrt(sq)).
func sumTol(rel float64, n int, sq *ref.Array) tol {
	k := math.Sqrt(float64(max(n, 1)))
	return tol{rel: rel, abs: 1e-6, scale: ref.Map(sq, func(v float64) float64 { return k * math.Sqrt(v) })}
}

// meanTol is sumTol for a mean: the sum's bound divided by n.
func meanTol(rel float64, n int, sq *ref.Array) tol {
	t := sumTol(rel, n, sq)
	t.scale = ref.Map(t.scale, func(v float64) float64 { return v / float64(max(n, 1)) })
	return t
}

// reduceSq returns the sum of squares of x over axes (keeping none), the
// scale of a sum's rounding error.
func reduceSq(x *ref.Array, keep bool, axes ...int) *ref.Array {
	return ref.Sum(ref.Mul(x, x), keep, axes...)
}

// softmaxTol bounds softmax and log-softmax over n values: each output is one
// exponential over a sum of n.
func softmaxTol(n int) tol {
	return tol{rel: 1e-5 * math.Sqrt(float64(max(n, 1))), abs: 1e-6}
}

// matmulTol bounds a matrix product of a and b (torch.matmul shapes): the
// error of a k-term dot product, rel*(|want| + sqrt(k)*sqrt(sum_k (a*b)^2)),
// about rel*k*|a||b|.
func matmulTol(a, b *ref.Array) tol {
	k := a.Shape()[a.Dim()-1]
	return sumTol(1e-5, k, ref.MatMul(ref.Mul(a, a), ref.Mul(b, b)))
}

// normTol bounds a normalization over groups of n values.
func normTol(n int) tol {
	k := math.Sqrt(float64(max(n, 1)))
	return tol{rel: 1e-5 * k, abs: 1e-5 * k}
}

// magnitudeTol bounds an op that sums products of its inputs with nonnegative
// weights (einsum, interpolation, index_add): its reference on the inputs'
// magnitudes is the sum of the terms' magnitudes, so cancellation between
// terms of opposite sign cannot shrink the bound below their rounding error.
func magnitudeTol(rel float64, r func([]*ref.Array) *ref.Array) func([]*ref.Array, *ref.Array) tol {
	return func(ins []*ref.Array, _ *ref.Array) tol {
		mag := make([]*ref.Array, len(ins))
		for i, a := range ins {
			mag[i] = ref.Abs(a)
		}
		return tol{rel: rel, abs: rel / 10, scale: r(mag)}
	}
}
