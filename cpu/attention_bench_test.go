package cpu

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// BenchmarkAttention times the fused kernels at the GPT training step's
// shape: batch [32, 4], L = S = 128, head size 32, causal, Q, K and V
// permuted views of one [32, 128, 384] buffer; and, for scale, the
// composed forward that stores the weights (scaled product, softmax
// kernel, product) without its mask, a lower bound of what the fused
// forward replaces.
func BenchmarkAttention(b *testing.B) {
	const n, h, l, dh = 32, 4, 128, 32
	r := newRand(b)
	d := New(benchConfig)
	b.Cleanup(func() { _ = d.Close() })
	w := 3 * h * dh
	buf := upload(b, d, device.Float32, attnRandom(r, n*l*w))
	var qkv [3]device.View
	for i := range qkv {
		qkv[i] = device.View{Buf: buf, DType: device.Float32, Offset: i * h * dh,
			Shape: []int{n, h, l, dh}, Strides: []int{l * w, dh, w, 1}}
	}
	shape := []int{n, h, l, dh}
	fresh := func(shape []int) device.View {
		return device.Contiguous(upload(b, d, device.Float32, attnRandom(r, device.NumElements(shape))), device.Float32, 0, shape)
	}
	scale := 1 / math.Sqrt(dh)
	fk := &device.AttentionKernel{Q: qkv[0], K: qkv[1], V: qkv[2], Scale: scale, Causal: true,
		Out: fresh(shape), LSE: fresh([]int{n, h, l})}
	require.NoError(b, d.Attention(fk))
	bk := &device.AttentionBackwardKernel{Q: qkv[0], K: qkv[1], V: qkv[2], Scale: scale, Causal: true,
		Out: fk.Out, LSE: fk.LSE, GradOut: fresh(shape), GradQ: fresh(shape), GradK: fresh(shape), GradV: fresh(shape)}
	b.Run("forward", func(b *testing.B) {
		for b.Loop() {
			if err := d.Attention(fk); err != nil {
				b.Fatal(err)
			}
		}
	})
	scores := fresh([]int{n, h, l, l})
	kt := qkv[1]
	kt.Shape, kt.Strides = []int{n, h, dh, l}, []int{l * w, dh, 1, w}
	scaled := device.Program{Code: []device.Instr{
		{Op: device.OpInput, Type: device.Float32},
		{Op: device.OpConst, Type: device.Float32, Imm: scale},
		{Op: device.OpMul, Type: device.Float32, Args: [3]device.Reg{0, 1}},
	}, Outputs: []device.Reg{2}}
	identity := device.Program{Code: []device.Instr{{Op: device.OpInput, Type: device.Float32}}, Outputs: []device.Reg{0}}
	qk := &device.MatMulKernel{Batch: []int{n, h}, M: l, N: l, K: dh, A: qkv[0], B: kt, Epilogue: scaled, Outputs: []device.View{scores}}
	sm := &device.SoftmaxKernel{In: scores, Out: scores}
	pv := &device.MatMulKernel{Batch: []int{n, h}, M: l, N: dh, K: l, A: scores, B: qkv[2], Epilogue: identity, Outputs: []device.View{fk.Out}}
	b.Run("composed-forward-unmasked", func(b *testing.B) {
		for b.Loop() {
			require.NoError(b, d.MatMul(qk))
			require.NoError(b, d.Softmax(sm))
			require.NoError(b, d.MatMul(pv))
		}
	})
	b.Run("backward", func(b *testing.B) {
		for b.Loop() {
			if err := d.AttentionBackward(bk); err != nil {
				b.Fatal(err)
			}
		}
	})
}
