package cpu

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// TestElementwiseTransposedSources covers large sources stored transposed
// (copied row-major before the kernel runs), float32 and int32, with a
// leading dimension wider than the matrix and an offset, next to a
// broadcast operand, on one and several workers.
func TestElementwiseTransposedSources(t *testing.T) {
	r := newRand(t)
	rows, cols := 130, 257 // > transposeMin elements, ragged tiles
	for _, dt := range []device.DType{device.Float32, device.Int32} {
		for _, workers := range []int{1, 3} {
			d := newDevice(t, workers)
			ld := rows + 5
			raw := randVals(r, 7+ld*cols)
			for i := range raw {
				raw[i] = round(dt, raw[i])
				if dt == device.Int32 {
					raw[i] = float64(int32(raw[i] * 100))
				}
			}
			x := device.View{Buf: upload(t, d, dt, raw), DType: dt, Offset: 7, Shape: []int{rows, cols}, Strides: []int{1, ld}}
			bias, bv := strided(t, d, r, dt, []int{cols}, []int{0}, 0)
			if dt == device.Int32 {
				for i := range bv {
					bv[i] = float64(int32(bv[i]))
				}
			}
			bias.Shape, bias.Strides = []int{rows, cols}, []int{0, 1}
			var b device.Builder
			b.Output(b.Binary(device.OpSub, b.Input(0, dt), b.Input(1, dt)))
			n := rows * cols
			out := device.Contiguous(poisoned(t, d, dt, n), dt, 0, []int{rows, cols})
			require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: []int{rows, cols}, Inputs: []device.View{x, bias}, Program: b.P, Outputs: []device.View{out}}))
			got := download(t, d, out.Buf, dt, n)
			for p := 0; p < n; p++ {
				want := at(raw, x, p) - at(bv, bias, p)
				if dt == device.Float32 {
					want = float64(float32(at(raw, x, p)) - float32(at(bv, bias, p)))
				}
				require.Equal(t, want, got[p], "%s workers %d at %d", dt, workers, p)
			}
		}
	}
}
