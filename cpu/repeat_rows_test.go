package cpu

import (
	"fmt"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// TestElementwiseRepeatedRows reads views that repeat consecutive values
// over their innermost dimension (a row's maximum or mean expanded over
// short rows, a bias over images), which the gather expands run by run in
// bulk: rows shorter and longer than a vector, runs cut by chunk
// boundaries, walks that wrap into outer dimensions with and without a
// stride there, and an offset; Int32 takes the per-run fill.
func TestElementwiseRepeatedRows(t *testing.T) {
	r := newRand(t)
	cases := []struct{ shape, strides []int }{
		{[]int{300, 7}, []int{1, 0}},
		{[]int{4, 37, 14}, []int{40, 1, 0}},
		{[]int{3, 50, 9}, []int{0, 1, 0}},
		{[]int{2, 600, 5}, []int{601, 1, 0}},
		{[]int{700, 33}, []int{1, 0}},
		{[]int{2, 2, 1000, 3}, []int{0, 1003, 1, 0}},
		{[]int{5000, 1}, []int{1, 0}},
	}
	for _, c := range cases {
		span := 1
		for i, n := range c.shape {
			span += (n - 1) * c.strides[i]
		}
		for _, dt := range []device.DType{device.Float32, device.Int32} {
			for _, workers := range []int{1, 3} {
				name := fmt.Sprintf("%v strides %v %v workers %d", c.shape, c.strides, dt, workers)
				d := newDevice(t, workers)
				k, raw := negation(t, d, r, dt, c.shape, c.strides, 3, span)
				require.NoError(t, d.Elementwise(k))
				n := device.NumElements(c.shape)
				got := download(t, d, k.Outputs[0].Buf, dt, n)
				for q := range n {
					if -at(raw, k.Inputs[0], q) != got[q] {
						require.Equal(t, -at(raw, k.Inputs[0], q), got[q], "%s at %d", name, q)
					}
				}
			}
		}
	}
}
