package main

import (
	"github.com/shaderflow/shaderflow/tensor"
)

// benchCase is one measured operation: setup makes its inputs, op runs it
// once and returns the result to realize; bytes and flops are what one run
// moves and computes, for rates.
type benchCase struct {
	name   string
	bytes  float64
	flops  float64
	setup  func(d *tensor.Device) []*tensor.Tensor
	op     func(in []*tensor.Tensor) *tensor.Tensor
	warmup int
	runs   int
}

// big is the element count of the bandwidth cases: 64M float32 (256 MiB)
// per tensor, large enough that one wait per run costs little.
const big = 64 << 20

// rows and cols shape the row-wise reductions (also 64M elements).
const rows, cols = 8192, 8192

// gemm is the side of the square matrix product.
const gemm = 4096

// cases returns the benchmark cases; their names match torch_cuda.py's.
func cases() []benchCase {
	rand := func(shapes ...[]int) func(d *tensor.Device) []*tensor.Tensor {
		return func(d *tensor.Device) []*tensor.Tensor {
			var ts []*tensor.Tensor
			for _, s := range shapes {
				t := tensor.Rand(d, s...)
				if err := t.Realize(); err != nil {
					panic(err)
				}
				ts = append(ts, t)
			}
			return ts
		}
	}
	vec := []int{big}
	return []benchCase{
		{name: "copy f32 64M", bytes: 2 * 4 * big, setup: rand(vec),
			op: func(in []*tensor.Tensor) *tensor.Tensor { return in[0].Clone() }},
		{name: "add f32 64M", bytes: 3 * 4 * big, setup: rand(vec, vec),
			op: func(in []*tensor.Tensor) *tensor.Tensor { return in[0].Add(in[1]) }},
		{name: "chain8 f32 64M", bytes: 3 * 4 * big, setup: rand(vec, vec),
			op: func(in []*tensor.Tensor) *tensor.Tensor {
				x := in[0].Mul(in[1]).AddScalar(0.5).Relu().MulScalar(1.5).SubScalar(0.25).Exp().AddScalar(1).Reciprocal()
				return x
			}},
		{name: "sum rows 8192x8192", bytes: 4 * rows * cols, setup: rand([]int{rows, cols}),
			op: func(in []*tensor.Tensor) *tensor.Tensor { return in[0].Sum(1) }},
		{name: "softmax rows 8192x8192", bytes: 2 * 4 * rows * cols, setup: rand([]int{rows, cols}),
			op: func(in []*tensor.Tensor) *tensor.Tensor { return in[0].Softmax(1) }},
		{name: "layernorm rows 8192x8192", bytes: 2 * 4 * rows * cols, setup: rand([]int{rows, cols}),
			op: func(in []*tensor.Tensor) *tensor.Tensor { return in[0].LayerNorm(1, nil, nil, 1e-5) }},
		{name: "sgemm 4096", flops: 2 * gemm * gemm * gemm, setup: rand([]int{gemm, gemm}, []int{gemm, gemm}),
			op: func(in []*tensor.Tensor) *tensor.Tensor { return in[0].MatMul(in[1]) }},
		{name: "tiny add 1", bytes: 8, setup: rand([]int{1}), warmup: 20, runs: 200,
			op: func(in []*tensor.Tensor) *tensor.Tensor { return in[0].AddScalar(1) }},
	}
}
