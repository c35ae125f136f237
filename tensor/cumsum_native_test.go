package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNativeCumsumMatchesReference runs Cumsum by the CPU's running-sum
// kernel over every axis of random tensors of Float32, Float64, Float16,
// Int64 and Bool (counted in Int64), against running sums in float64
// (integers exactly), and its gradient through a weighted sum against the
// network's gradient.
func TestNativeCumsumMatchesReference(t *testing.T) {
	d := MustOpen("cpu")
	defer d.Close()
	r := rand.New(rand.NewPCG(3, 5))
	for _, shape := range [][]int{{1}, {7}, {3, 1000}, {4, 5, 6}} {
		for axis := range shape {
			for _, dt := range []DType{Float32, Float64, Float16, Int64, Bool} {
				t.Run(fmt.Sprintf("%v/axis%d/%s", shape, axis, dt), func(t *testing.T) {
					n := numel(shape)
					v := make([]float64, n)
					for i := range v {
						v[i] = float64(float32(r.NormFloat64() * 100))
						if !dt.IsFloat() {
							v[i] = math.Round(v[i])
						}
					}
					x := FromFloat64s(d, v, shape...).Cast(dt)
					got := x.Cumsum(axis).Cast(Float64)
					gv, err := got.Float64s()
					require.NoError(t, err)
					xv, err := x.Cast(Float64).Float64s()
					require.NoError(t, err)
					want, mag := refCumsum(xv, shape, axis)
					for i := range want {
						tol := 0.0
						switch dt {
						case Float32:
							tol = 6e-8 * mag[i]
						case Float16:
							tol = 1e-3 * mag[i]
						}
						require.InDelta(t, want[i], gv[i], tol, "element %d", i)
					}
				})
			}
		}
		t.Run(fmt.Sprintf("%v/gradient", shape), func(t *testing.T) {
			n := numel(shape)
			v, w := make([]float32, n), make([]float32, n)
			for i := range v {
				v[i], w[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			}
			weights := FromFloat32s(d, w, shape...)
			for axis := range shape {
				grad := func(native bool) []float32 {
					nativeScan = native
					defer func() { nativeScan = true }()
					x := FromFloat32s(d, v, shape...).SetRequiresGrad(true)
					require.NoError(t, x.Cumsum(axis).Mul(weights).Sum().Backward())
					g, err := x.Grad().Float32s()
					require.NoError(t, err)
					return g
				}
				want, got := grad(false), grad(true)
				for i := range want {
					require.InDelta(t, want[i], got[i], 1e-4*(1+math.Abs(float64(want[i]))), "axis %d element %d", axis, i)
				}
			}
		})
	}
}

// refCumsum returns the running sums of x (row-major, of shape) along axis
// in float64, and the running sums of magnitudes (the error bound's scale).
func refCumsum(x []float64, shape []int, axis int) (sums, mags []float64) {
	sums, mags = make([]float64, len(x)), make([]float64, len(x))
	inner := 1
	for _, s := range shape[axis+1:] {
		inner *= s
	}
	n := shape[axis]
	for i := range x {
		if i/inner%n == 0 {
			sums[i], mags[i] = x[i], math.Abs(x[i])
			continue
		}
		sums[i], mags[i] = sums[i-inner]+x[i], mags[i-inner]+math.Abs(x[i])
	}
	return sums, mags
}
