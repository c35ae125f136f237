package cpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// TestShortRowReductions checks sums, maxima and minima over rows shorter
// than minRowWidth (transposed a chunk at a time) against the reference:
// every short length, outputs that end inside a chunk, two reduced axes,
// NaN in the first, a middle and the last element, signed-zero ties, and
// serial and parallel splits.
func TestShortRowReductions(t *testing.T) {
	r := newRand(t)
	for n := 2; n < minRowWidth; n++ {
		for _, op := range []device.ReduceOp{device.ReduceSum, device.ReduceMax, device.ReduceMin} {
			for _, workers := range []int{1, 3} {
				o := 3*(chunkLen/n) + 5
				out, red, perm := []int{o}, []int{n}, []int{0, 1}
				if n == 12 {
					out, red, perm = []int{7, o / 7}, []int{3, 4}, []int{0, 1, 2, 3}
					o = 7 * (o / 7)
				}
				name := fmt.Sprintf("%v out%v red%v workers%d", op, out, red, workers)
				d := newDevice(t, workers)
				in, vals := strided(t, d, r, device.Float32, append(append([]int{}, out...), red...), perm, 2)
				for i := range o {
					set := func(j int, v float64) { vals[in.Index(i*n+j)] = v }
					switch i % 5 {
					case 1:
						set([]int{0, n / 2, n - 1}[i/5%3], math.NaN())
					case 2:
						for j := range n {
							set(j, -1-float64(j))
							if op == device.ReduceMin {
								set(j, 1+float64(j))
							}
						}
						set(0, math.Copysign(0, -1))
						set(n-1, 0)
					}
				}
				in.Buf = upload(t, d, device.Float32, vals)
				got := runReduce(t, d, op, in, out, red)
				want := refOf(op, vals, in, o, n)
				tol := 0.0
				if op == device.ReduceSum {
					tol = 1e-5
				}
				requireClose(t, want, got, tol, tol, name)
				for i := range want {
					if op != device.ReduceSum {
						if math.Signbit(want[i]) != math.Signbit(got[i]) {
							require.Equal(t, math.Signbit(want[i]), math.Signbit(got[i]), "%s: output %d", name, i)
						}
					}
				}
			}
		}
	}
}
