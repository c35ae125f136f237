package tensor_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// TestMatMulGradOfBroadcastMatrix checks the gradients of a product whose
// right operand is a matrix broadcast over a batch (both computed as one
// product over every batch element's rows) against the same matrix
// expanded to the batch explicitly, whose gradients take one product per
// batch element (the matrix's then summed), with the product's gradient
// contiguous or a strided view.
func TestMatMulGradOfBroadcastMatrix(t *testing.T) {
	dev := openCPU(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 5))
	rnd := func(shape ...int) []float32 { return randomValues(r, shape...).Data }
	cases := []struct{ a, b []int }{
		{[]int{3, 7, 5}, []int{5, 4}},
		{[]int{2, 3, 7, 5}, []int{5, 4}},
		{[]int{2, 3, 7, 5}, []int{1, 5, 4}},
		{[]int{2, 1, 7, 5}, []int{1, 1, 5, 4}},
		{[]int{7, 5}, []int{3, 5, 4}},
		{[]int{2, 3, 7, 5}, []int{3, 5, 4}},
	}
	for _, tc := range cases {
		for _, transposed := range []bool{false, true} {
			t.Run(fmt.Sprint(tc.a, tc.b, transposed), func(t *testing.T) {
				ad, bd := rnd(tc.a...), rnd(tc.b...)
				var w *tensor.Tensor
				grads := func(expand bool) (ga, gb []float32) {
					a := tensor.FromFloat32s(dev, ad, tc.a...).SetRequiresGrad(true)
					b := tensor.FromFloat32s(dev, bd, tc.b...).SetRequiresGrad(true)
					bb := b
					if expand {
						// The batch spelt out: b's own batch dimensions are
						// broadcast against a's before the product sees them.
						batch := len(tc.a) - 2
						if len(tc.b)-2 > batch {
							batch = len(tc.b) - 2
						}
						shape := make([]int, 0, batch+2)
						for i := range batch {
							da, db := dimFromEnd(tc.a, batch+2-i), dimFromEnd(tc.b, batch+2-i)
							shape = append(shape, max(da, db))
						}
						bb = b.Expand(append(shape, tc.b[len(tc.b)-2:]...)...)
					}
					y := a.MatMul(bb)
					if transposed { // the product's gradient arrives as a strided view
						y = y.Transpose(-1, -2)
					}
					if w == nil {
						w = tensor.FromFloat32s(dev, rnd(y.Shape()...), y.Shape()...)
					}
					require.NoError(t, y.Mul(w).Sum().Backward())
					require.Equal(t, tc.b, b.Grad().Shape())
					ga, err := a.Grad().Float32s()
					require.NoError(t, err)
					gb, err = b.Grad().Float32s()
					require.NoError(t, err)
					return ga, gb
				}
				wantA, wantB := grads(true)
				gotA, gotB := grads(false)
				require.InDeltaSlice(t, toF64(wantA), toF64(gotA), 1e-4)
				require.InDeltaSlice(t, toF64(wantB), toF64(gotB), 1e-4)
			})
		}
	}
}

// dimFromEnd returns shape's i-th dimension from the end (1 = last), 1
// where shape has fewer.
func dimFromEnd(shape []int, i int) int {
	if i > len(shape) {
		return 1
	}
	return shape[len(shape)-i]
}

func toF64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
