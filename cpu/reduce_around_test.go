package cpu

import (
	"fmt"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// TestSumAroundOutputs checks sums whose reduced axes lie on both sides of
// the outputs in memory (a channel's sum over [N, C, H, W]), which are
// evaluated in the input's order, against float64 sums: several outer and
// inner axes, odd sizes, axes of one element, an offset, one to three
// workers, a prologue with an operand broadcast per output ((x - m)², a
// batch norm's variance), and layouts where the path does not apply.
func TestSumAroundOutputs(t *testing.T) {
	r := newRand(t)
	cases := []struct {
		out, red []int
		perm     []int // physical layout of out ++ red
		split    bool  // whether the split path applies
	}{
		{[]int{32}, []int{64, 14, 14}, []int{1, 0, 2, 3}, true},    // [N, C, H, W] summed over N, H, W
		{[]int{7}, []int{5, 3, 17}, []int{1, 0, 2, 3}, true},       // odd sizes, inner runs of 51
		{[]int{3, 5}, []int{2, 4, 16}, []int{2, 3, 0, 1, 4}, true}, // two outer, two output axes
		{[]int{6}, []int{9, 1, 20}, []int{1, 0, 2, 3}, true},       // a reduced axis of one element
		{[]int{12}, []int{3, 40}, []int{1, 0, 2}, true},            // one inner axis
		{[]int{12}, []int{3, 5}, []int{1, 0, 2}, false},            // inner runs too short
		{[]int{12}, []int{1, 40}, []int{1, 0, 2}, false},           // no outer axis: outputs outermost
		{[]int{8, 9}, []int{4, 20}, []int{1, 2, 0, 3}, false},      // a reduced axis between the outputs
		{[]int{128}, []int{64}, []int{1, 0}, false},                // outputs innermost (reducesRows)
		{[]int{40}, []int{30, 20}, []int{1, 0, 2}, true},           // large enough to split across workers
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2, 3} {
			name := fmt.Sprintf("out%v red%v perm%v workers%d", c.out, c.red, c.perm, workers)
			d := newDevice(t, workers)
			in, vals := strided(t, d, r, device.Float32, append(append([]int{}, c.out...), c.red...), c.perm, 3)
			o, n := device.NumElements(c.out), device.NumElements(c.red)
			k := &device.ReduceKernel{Op: device.ReduceSum, OutShape: c.out, RedShape: c.red, Inputs: []device.View{in}}
			_, split := sumsAround(k, o, nil)
			require.Equal(t, c.split, split, name)
			got := runReduce(t, d, device.ReduceSum, in, c.out, c.red)
			requireClose(t, refOf(device.ReduceSum, vals, in, o, n), got, 1e-5, 1e-5, name)

			// (x - m)² with m one value per output, broadcast over the
			// reduced axes.
			mv := make([]float64, o)
			for i := range mv {
				mv[i] = float64(float32(r.Float64() - 0.5))
			}
			mbuf := upload(t, d, device.Float32, mv)
			mst := append(device.ContiguousStrides(c.out), make([]int, len(c.red))...)
			m := device.View{Buf: mbuf, DType: device.Float32, Shape: in.Shape, Strides: mst}
			var b device.Builder
			dx := b.Binary(device.OpSub, b.Input(0, device.Float32), b.Input(1, device.Float32))
			b.Output(b.Binary(device.OpMul, dx, dx))
			res := device.Contiguous(poisoned(t, d, device.Float32, o), device.Float32, 0, c.out)
			kv := &device.ReduceKernel{Op: device.ReduceSum, OutShape: c.out, RedShape: c.red, Inputs: []device.View{in, m},
				Prologue: b.P, Epilogue: device.Identity(device.Float32), Outputs: []device.View{res}}
			require.NoError(t, d.Reduce(kv), name)
			want := make([]float64, o)
			for i := range want {
				for j := range n {
					x := float64(float32(at(vals, in, i*n+j)))
					e := float64(float32(x - mv[i]))
					want[i] += float64(float32(e * e))
				}
			}
			requireClose(t, want, download(t, d, res.Buf, device.Float32, o), 1e-5, 1e-5, name+" (x-m)²")
		}
	}
}
