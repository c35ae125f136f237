package tensor_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor"
)

// TestCastFloat64ToHalfRoundsOnce casts Float64 values just off Float16 and
// BFloat16 midpoints (which Float32 cannot tell from the midpoints) to
// those types, stored and inside a fused program: each must round once, to
// the nearer neighbour, not through Float32 to the even one.
func TestCastFloat64ToHalfRoundsOnce(t *testing.T) {
	d := openCPU(t)
	tiny := math.Ldexp(1, -30)
	for _, c := range []struct {
		dt  tensor.DType
		mid float64 // a midpoint between two neighbours
		lo  float64 // the even neighbour, nearer zero
		hi  float64
	}{
		{tensor.Float16, 1756.5, 1756, 1757},
		{tensor.Float16, -2.0009765625, -2, -2.001953125},
		{tensor.BFloat16, 1.00390625, 1, 1.0078125},
	} {
		x := []float64{c.mid + tiny*c.mid, c.mid - tiny*c.mid, c.mid}
		want := []float64{c.hi, c.lo, c.lo}
		in := tensor.FromFloat64s(d, x, len(x))
		for name, y := range map[string]*tensor.Tensor{
			"stored": in.Cast(c.dt),
			"fused":  in.Cast(c.dt).Cast(tensor.Float64).MulScalar(1),
		} {
			got, err := y.Cast(tensor.Float64).Float64s()
			require.NoError(t, err)
			require.Equal(t, want, got, "%v to %s %s", x, c.dt, name)
		}
	}
}
