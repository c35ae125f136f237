package vec

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestMaximumMinimumBits runs Maximum, Minimum and Relu on signed zeros,
// NaNs and infinities in every pairing, in vector bodies and tails, at
// every level: each result must be the contract's, bit for bit (a NaN
// matching any NaN), the signed zeros included.
func TestMaximumMinimumBits(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	vals := []float32{0, float32(math.Copysign(0, -1)), nan, 1, -1, inf, -inf}
	var a, b []float32
	for _, x := range vals {
		for _, y := range vals {
			a, b = append(a, x), append(b, y)
		}
	}
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range []int{len(a), 16, 5} {
			for _, op := range []device.Op{device.OpMax, device.OpMin} {
				got := poison(n)
				binary(op, got, a[:n], b[:n])
				for i := range got {
					require.True(t, sameBits(got[i], refBinary(op, a[i], b[i])), "%v(%g, %g) = %g", op, a[i], b[i], got[i])
				}
				for _, s := range vals {
					scalarOp(op, got, a[:n], s)
					for i := range got {
						require.True(t, sameBits(got[i], refBinary(op, a[i], s)), "%v(%g, %g) = %g", op, a[i], s, got[i])
					}
				}
			}
			got := poison(n)
			unary(device.OpRelu, got, a[:n])
			for i := range got {
				require.True(t, sameBits(got[i], device.OpRelu.Info().Float(a[i])), "relu(%g) = %g", a[i], got[i])
			}
		}
	})
}
