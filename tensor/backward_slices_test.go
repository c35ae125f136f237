package tensor_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// slicer takes a slice of x: tensor.Slice, or the same elements picked
// with Gather, whose gradient is a scatter into zeros (the reference).
type slicer func(x *tensor.Tensor, dim, start, end, step int) *tensor.Tensor

func realSlice(x *tensor.Tensor, dim, start, end, step int) *tensor.Tensor {
	return x.Slice(dim, start, end, step)
}

func gatherSlice(x *tensor.Tensor, dim, start, end, step int) *tensor.Tensor {
	n := (end - start + step - 1) / step
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(start + i*step)
	}
	ones := make([]int, x.Dim())
	for i := range ones {
		ones[i] = 1
	}
	ones[dim] = n
	shape := x.Shape()
	shape[dim] = n
	return x.Gather(dim, tensor.FromInt32s(x.Device(), idx, ones...).Expand(shape...))
}

// TestSliceGradientsMatchScatteredOnes checks Backward's placement of the
// gradients of several slices of one tensor (one Cat for disjoint slices
// along a dimension) against gathers of the same elements, whose gradients
// are scattered into zeros and added: tiling slices, gaps, overlaps,
// steps above 1, slices of slices, one slice read twice, slices along two
// dimensions, empty and whole slices, mixed with a direct use.
func TestSliceGradientsMatchScatteredOnes(t *testing.T) {
	dev := openCPU(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 17))
	shape := []int{3, 10, 12}
	// term weighs a term by fixed random numbers so that each element's
	// gradient differs.
	weights := map[string]*tensor.Tensor{}
	term := func(key string, y *tensor.Tensor) *tensor.Tensor {
		key = fmt.Sprint(key, y.Shape())
		w := weights[key]
		if w == nil {
			v := make([]float32, y.NumElements())
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
			w = tensor.FromFloat32s(dev, v, y.Shape()...)
			weights[key] = w
		}
		return y.Mul(w).Sum()
	}
	cases := map[string]func(x *tensor.Tensor, sl slicer) *tensor.Tensor{
		"tiling": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			return term("q", sl(x, 2, 0, 4, 1)).Add(term("k", sl(x, 2, 4, 8, 1))).Add(term("v", sl(x, 2, 8, 12, 1)))
		},
		"tiling out of order": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			return term("v", sl(x, 2, 8, 12, 1)).Add(term("q", sl(x, 2, 0, 4, 1))).Add(term("k", sl(x, 2, 4, 8, 1)))
		},
		"gaps": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			return term("a", sl(x, 1, 1, 3, 1)).Add(term("b", sl(x, 1, 6, 9, 1)))
		},
		"overlaps": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			return term("a", sl(x, 1, 0, 5, 1)).Add(term("b", sl(x, 1, 3, 8, 1))).Add(term("c", sl(x, 1, 2, 4, 1))).Add(term("d", sl(x, 1, 3, 8, 1)))
		},
		"steps": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			return term("a", sl(x, 2, 1, 12, 3)).Add(term("b", sl(x, 2, 0, 6, 1))).Add(term("c", sl(x, 0, 0, 3, 2)))
		},
		"slice of a slice": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			inner := sl(x, 1, 2, 10, 1)
			return term("a", sl(inner, 1, 1, 5, 1)).Add(term("b", sl(inner, 2, 3, 9, 2))).Add(term("c", sl(x, 1, 0, 2, 1)))
		},
		"read twice": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			s := sl(x, 2, 3, 7, 1)
			return term("a", s.Mul(s)).Add(term("b", s.Tanh()))
		},
		"two dims": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			return term("a", sl(x, 1, 0, 4, 1)).Add(term("b", sl(x, 2, 5, 12, 1))).Add(term("c", sl(x, 1, 4, 10, 1)))
		},
		"empty and whole": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			return term("a", sl(x, 2, 5, 5, 1).AddScalar(1)).Add(term("b", sl(x, 0, 0, 3, 1))).Add(term("c", sl(x, 0, 1, 2, 1)))
		},
		"only empty": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			return term("a", sl(x, 1, 4, 4, 1).AddScalar(1)).Add(x.Sum().MulScalar(0))
		},
		"with a direct use": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			return term("a", x.Tanh()).Add(term("b", sl(x, 2, 2, 6, 1))).Add(term("c", x.Exp()))
		},
		"of a computed tensor": func(x *tensor.Tensor, sl slicer) *tensor.Tensor {
			y := x.MulScalar(3).Sin()
			return term("a", sl(y, 0, 1, 3, 1)).Add(term("b", sl(y, 0, 0, 1, 1))).Add(term("c", y.Cos()))
		},
	}
	data := make([]float32, 3*10*12)
	for i := range data {
		data[i] = float32(r.NormFloat64())
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			grad := func(sl slicer) []float32 {
				x := tensor.FromFloat32s(dev, data, shape...).SetRequiresGrad(true)
				require.NoError(t, f(x, sl).Backward())
				require.Equal(t, shape, x.Grad().Shape())
				g, err := x.Grad().Float32s()
				require.NoError(t, err)
				return g
			}
			want, got := grad(gatherSlice), grad(realSlice)
			nonzero := 0
			for i := range want {
				require.InDelta(t, want[i], got[i], 1e-5*(1+float64(abs32(want[i]))), "element %d", i)
				if want[i] != 0 {
					nonzero++
				}
			}
			if name != "only empty" {
				require.Positive(t, nonzero)
			}
		})
	}
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// TestSliceGradientKeepsFloat64 checks that the gradient of Float64 slices
// placed together stays Float64 to the last bit.
func TestSliceGradientKeepsFloat64(t *testing.T) {
	dev := openCPU(t)
	x := tensor.FromFloat64s(dev, []float64{1, 2, 3, 4, 5, 6}, 6).SetRequiresGrad(true)
	third := 1.0 / 3
	loss := x.Narrow(0, 0, 2).MulScalar(third).Sum().Add(x.Narrow(0, 3, 3).MulScalar(2 * third).Sum())
	require.NoError(t, loss.Backward())
	require.Equal(t, tensor.Float64, x.Grad().DType())
	g, err := x.Grad().Float64s()
	require.NoError(t, err)
	require.Equal(t, []float64{third, third, 0, 2 * third, 2 * third, 2 * third}, g)
}
