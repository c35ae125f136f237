package gputest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

func testMatMul(t *testing.T, d device.Device) {
	rng := NewRand(t)
	f32 := device.Float32
	cases := []struct {
		batch   []int
		m, n, k int
		la, lb  Layout
		bcastA  bool // A's first batch dimension broadcast
	}{
		{nil, 1, 1, 1, Contiguous, Contiguous, false},
		{nil, 65, 67, 33, Contiguous, Contiguous, false},
		{nil, 129, 70, 257, Reversed, Offset, false},
		{nil, 3, 5, 0, Contiguous, Contiguous, false},
		{[]int{2, 3}, 17, 9, 13, Contiguous, Reversed, true},
		{[]int{4}, 64, 64, 64, Strided, Contiguous, false},
	}
	for _, c := range cases {
		what := fmt.Sprintf("batch %v M=%d N=%d K=%d A %s B %s", c.batch, c.m, c.n, c.k, c.la, c.lb)
		a := Make(t, d, rng, f32, slices.Concat(c.batch, []int{c.m, c.k}), c.la, Normal(f32))
		if c.bcastA {
			a = Make(t, d, rng, f32, slices.Concat([]int{1}, c.batch[1:], []int{c.m, c.k}), c.la, Normal(f32))
			a = broadcastFirst(a, c.batch[0])
		}
		b := Make(t, d, rng, f32, slices.Concat(c.batch, []int{c.k, c.n}), c.lb, Normal(f32))
		res := slices.Concat(c.batch, []int{c.m, c.n})
		bias := Make(t, d, rng, f32, res, Broadcast, Normal(f32))
		var e device.Builder
		e.Output(e.Unary(device.OpRelu, e.Binary(device.OpAdd, e.Input(0, f32), e.Input(1, f32))))
		e.Output(e.Input(0, f32))
		k := &device.MatMulKernel{Batch: c.batch, M: c.m, N: c.n, K: c.k, A: a.View, B: b.View,
			EpilogueInputs: []device.View{bias.View}, Epilogue: e.P,
			Outputs: []device.View{Output(t, d, f32, 1, res), Output(t, d, f32, 0, res)}}
		require.NoError(t, d.MatMul(k), what)
		nb := device.NumElements(c.batch)
		var want0, want1 []float64
		for bi := 0; bi < nb; bi++ {
			for i := 0; i < c.m; i++ {
				for j := 0; j < c.n; j++ {
					s := 0.0
					for q := 0; q < c.k; q++ {
						s += a.Values[(bi*c.m+i)*c.k+q] * b.Values[(bi*c.k+q)*c.n+j]
					}
					o := (bi*c.m+i)*c.n + j
					want1 = append(want1, s)
					want0 = append(want0, max(0, float64(float32(s))+bias.Values[o]))
				}
			}
		}
		tl := Tol{Abs: 2e-6 * float64(c.k+1), Rel: 1e-5}
		Check(t, what+": relu(AB+bias)", Fetch(t, d, k.Outputs[0]), want0, tl)
		Check(t, what+": AB", Fetch(t, d, k.Outputs[1]), want1, tl)
	}
}

// broadcastFirst expands dimension 0 (of size one) of x to n with stride 0.
func broadcastFirst(x Tensor, n int) Tensor {
	v := x.View
	v.Shape = slices.Clone(v.Shape)
	v.Strides = slices.Clone(v.Strides)
	v.Shape[0], v.Strides[0] = n, 0
	var vals []float64
	for range n {
		vals = append(vals, x.Values...)
	}
	return Tensor{View: v, Values: vals}
}
