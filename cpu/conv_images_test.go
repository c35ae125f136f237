package cpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// TestConvManyImagesWithEpilogue covers the paths the small-batch test does
// not: images in parallel with the epilogue run per image, 1×1 windows that
// skip im2col, weight gradients whose chunks span several images, and
// operands stored contiguously. The epilogue (2·acc - 1) checks that every
// element goes through it exactly once.
func TestConvManyImagesWithEpilogue(t *testing.T) {
	r := newRand(t)
	cases := []device.ConvGeometry{
		geometry(8, 3, 6, 1, []int{9, 10}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		geometry(8, 4, 6, 2, []int{7, 5}, []int{1, 1}, []int{1, 1}, []int{0, 0}, []int{1, 1}),    // direct, grouped
		geometry(6, 5, 3, 1, []int{8, 8}, []int{1, 1}, []int{2, 2}, []int{0, 0}, []int{1, 1}),    // 1×1 strided: im2col
		geometry(5, 1, 4, 1, []int{40}, []int{1}, []int{1}, []int{0}, []int{1}),                  // direct, one channel
		geometry(16, 2, 3, 1, []int{28, 28}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}), // direct 3×3
		geometry(4, 1, 5, 1, []int{13, 21}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}),  // direct 3×3, odd sizes
		geometry(3, 4, 6, 2, []int{9, 35}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}),   // direct 3×3 weight gradient, grouped
		geometry(4, 3, 6, 3, []int{10, 12}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}),  // direct 3×3, depthwise
		geometry(2, 3, 4, 1, []int{5, 6}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}),    // 3 channels: im2col
	}
	var e device.Builder
	e.Output(e.Binary(device.OpSub, e.Binary(device.OpMul, e.Input(0, device.Float32), e.Const(2, device.Float32)), e.Const(1, device.Float32)))
	for ci, g := range cases {
		for _, mode := range []device.ConvMode{device.ConvForward, device.ConvBackwardInput, device.ConvBackwardWeight} {
			for _, workers := range []int{1, 2, 3} {
				t.Run(fmt.Sprintf("case%d/mode%d/w%d", ci, mode, workers), func(t *testing.T) {
					d := newDevice(t, workers)
					k := &device.ConvKernel{Mode: mode, Geom: g, Epilogue: e.P}
					xShape := append([]int{g.N, g.C}, g.In...)
					wShape := append([]int{g.O, g.C / g.Groups}, g.Kernel...)
					yShape := append([]int{g.N, g.O}, g.Out...)
					aShape, bShape := xShape, wShape
					switch mode {
					case device.ConvBackwardInput:
						aShape = yShape
					case device.ConvBackwardWeight:
						aShape, bShape = yShape, xShape
					}
					a, av := strided(t, d, r, device.Float32, aShape, identityPerm(len(aShape)), 1)
					b, bv := strided(t, d, r, device.Float32, bShape, identityPerm(len(bShape)), 0)
					k.A, k.B = a, b
					shape := k.ResultShape()
					n := device.NumElements(shape)
					out := device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, shape)
					k.Outputs = []device.View{out}
					require.NoError(t, d.Conv(k))
					da, db := dense(av, a), dense(bv, b)
					want := refConv(mode, g, da, db)
					// A weight gradient sums thousands of terms (case 4: 10816)
					// in float32, whose rounding grows with the terms'
					// magnitudes, not the result: bound each element by its
					// terms' sum of magnitudes as well.
					mag := refConv(mode, g, absAll(da), absAll(db))
					got := download(t, d, out.Buf, device.Float32, n)
					for i := range want {
						want[i] = 2*want[i] - 1
						bound := 2e-4 + 2e-4*math.Abs(want[i]) + 2*1e-6*mag[i]
						require.InDelta(t, want[i], got[i], bound, "conv: element %d", i)
					}
				})
			}
		}
	}
}

// absAll returns the magnitudes of xs.
func absAll(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Abs(x)
	}
	return out
}

// TestBalanceImages checks that images are grouped into a multiple of the
// workers' count of products (one product alone runs on every worker),
// as large as allowed.
func TestBalanceImages(t *testing.T) {
	for _, tc := range []struct{ n, ic, workers, want int }{
		{32, 10, 2, 8}, {32, 1, 2, 1}, {32, 32, 2, 32}, {32, 10, 1, 10}, {5, 5, 2, 5}, {5, 4, 2, 3}, {7, 3, 2, 2}, {32, 3, 3, 3}, {1, 1, 4, 1},
	} {
		got := balanceImages(tc.n, tc.ic, tc.workers)
		require.Equal(t, tc.want, got, "%+v", tc)
		require.LessOrEqual(t, got, tc.ic)
	}
}
