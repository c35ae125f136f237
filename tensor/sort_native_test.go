package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/shaderflow/shaderflow/cpu"
)

// TestNativeSortMatchesNetwork sorts (and takes the top k of) random
// tensors of every dtype the CPU
// stores (NaN, ±0, infinities and ties among the floats), along the last
// dimension and along others (a strided line), ascending and descending,
// with lines on both sides of maxRankSort, once by the CPU's sort kernel
// and once by the bitonic network, and requires the same positions: the
// network's order is torch.sort's with stable=True (checked against PyTorch
// by the conformance suite).
func TestNativeSortMatchesNetwork(t *testing.T) {
	d := MustOpen("cpu")
	defer d.Close()
	r := rand.New(rand.NewPCG(7, 11))
	palette := []float64{math.NaN(), 0, math.Copysign(0, -1), 1, -1, 2.5, math.Inf(1), math.Inf(-1)}
	values := func(n int, integer bool) []float64 {
		v := make([]float64, n)
		for i := range v {
			switch {
			case integer:
				v[i] = float64(r.IntN(7) - 3)
			case r.IntN(3) == 0:
				v[i] = palette[r.IntN(len(palette))]
			default:
				v[i] = float64(float32(r.NormFloat64()))
			}
		}
		return v
	}
	makers := map[DType]func(v []float64, shape []int) *Tensor{
		Float32: func(v []float64, s []int) *Tensor { return FromFloat32sAs(d, Float32, f32s(v), s...) },
		Float16: func(v []float64, s []int) *Tensor { return FromFloat32sAs(d, Float16, f32s(v), s...) },
		BFloat16: func(v []float64, s []int) *Tensor {
			return FromFloat32sAs(d, BFloat16, f32s(v), s...)
		},
		Float64: func(v []float64, s []int) *Tensor { return FromFloat64s(d, v, s...) },
		Int32:   func(v []float64, s []int) *Tensor { return FromFloat32s(d, f32s(v), s...).Cast(Int32) },
		Int64: func(v []float64, s []int) *Tensor {
			w := make([]int64, len(v))
			for i, x := range v {
				w[i] = int64(x) << 40 // beyond float32's exact range
			}
			return FromInt64s(d, w, s...)
		},
		Uint8: func(v []float64, s []int) *Tensor { return FromFloat32s(d, f32s(v), s...).AddScalar(3).Cast(Uint8) },
		Int8:  func(v []float64, s []int) *Tensor { return FromFloat32s(d, f32s(v), s...).Cast(Int8) },
		Bool:  func(v []float64, s []int) *Tensor { return FromFloat32s(d, f32s(v), s...).GtScalar(0) },
	}
	shapes := [][]int{{1}, {2}, {5, 7}, {3, 256}, {2, 257}, {4, 300}, {1000}}
	if testing.Short() {
		// The longest networks cost minutes under emulation (arm64 on qemu);
		// 257 already takes a network past a power of two.
		shapes = shapes[:5]
	}
	for dt, mk := range makers {
		for _, shape := range shapes {
			for _, axis := range []int{-1, 0} {
				for _, desc := range []bool{false, true} {
					name := fmt.Sprintf("%s/%v/axis%d/desc%v", dt, shape, axis, desc)
					t.Run(name, func(t *testing.T) {
						x := mk(values(numel(shape), !dt.IsFloat()), shape)
						nativeSort = false
						want := mustInt32s(t, x.ArgSort(axis, desc))
						nativeSort = true
						got := mustInt32s(t, x.ArgSort(axis, desc))
						require.Equal(t, want, got)
						if dt != Float32 && dt != Int64 {
							return // the top k of other types take the same paths
						}
						n := x.Shape()[(axis+len(shape))%len(shape)]
						for _, k := range []int{0, 1, min(3, n), n / 20, n / 2, n} {
							nativeSort = false
							_, want := x.TopK(k, axis, !desc)
							nativeSort = true
							_, got := x.TopK(k, axis, !desc)
							require.Equal(t, mustInt32s(t, want), mustInt32s(t, got), "k=%d", k)
						}
					})
				}
			}
		}
	}
}

func f32s(v []float64) []float32 {
	w := make([]float32, len(v))
	for i, x := range v {
		w[i] = float32(x)
	}
	return w
}

func numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

func mustInt32s(t *testing.T, x *Tensor) []int32 {
	t.Helper()
	v, err := x.Int32s()
	require.NoError(t, err)
	return v
}
