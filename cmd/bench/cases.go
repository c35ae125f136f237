package main

import (
	"fmt"

	"github.com/shaderflow/shaderflow/internal/torchref"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/bench"
)

// benchCase is one benchmark: how the Go side builds and runs it through
// the tensor API, what it moves and computes, and how the PyTorch script
// reproduces it (the exported fields, sent to the script as JSON).
type benchCase struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"` // matmul, binary, unary, chain, sum_rows, softmax_rows, log_softmax_rows, layernorm_rows, conv2d, to_f16, onnx_resnet18, gpt_forward, gpt_generate
	Op      string `json:"op,omitempty"`
	N       int    `json:"n,omitempty"` // elements of elementwise inputs
	M       int    `json:"m,omitempty"`
	NCols   int    `json:"n_cols,omitempty"`
	K       int    `json:"k,omitempty"`
	Rows    int    `json:"rows,omitempty"`
	Cols    int    `json:"cols,omitempty"`
	X       []int  `json:"x,omitempty"` // conv2d input shape
	W       []int  `json:"w,omitempty"` // conv2d weight shape
	Threads []int  `json:"threads"`     // PyTorch thread counts to try; the fastest is kept
	// GPT is the model of the gpt_ kinds; Temperature and TopK are the
	// sampling of gpt_generate.
	GPT         *torchref.GPTSizes `json:"gpt,omitempty"`
	Temperature float64            `json:"temperature,omitempty"`
	TopK        int                `json:"top_k,omitempty"`

	flops, bytes float64
	tokens       float64 // tokens an iteration processes, for tokens/s (GPT cases)
	limit        string
	unfused      bool // run with tensor fusion off
	// build creates the inputs on dev and returns them and the function
	// that computes the benchmark's result from them.
	build func(dev *tensor.Device) (run func() *tensor.Tensor, inputs []*tensor.Tensor)
}

// The machine-limit keys of the report (see bench.Report.Limits).
const (
	limitFMA     = bench.LimitFLOPs     // FMA peak, all cores
	limitFMA1    = "fma_1core_gflops"   // FMA peak, one core
	limitDRAM    = bench.LimitBandwidth // STREAM triad, all cores
	limitDRAM1   = "dram_1core_gbps"    // STREAM triad, one core
	elems        = 10_000_000
	rowsN, colsN = 10_000, 1_000
)

// cases returns the benchmarks in report order.
func cases() []benchCase {
	var cs []benchCase
	for _, s := range [][3]int{{1024, 1024, 1024}, {512, 512, 512}, {64, 784, 128}} {
		cs = append(cs, matmulCase(s[0], s[1], s[2]))
	}
	cs = append(cs, binaryCase("add", elems), binaryCase("mul", elems), unaryCase("relu", elems))
	for _, op := range []string{"tanh", "sigmoid", "gelu", "exp"} {
		cs = append(cs, unaryCase(op, elems))
	}
	cs = append(cs, chainCase(false, elems), chainCase(true, elems), sumRowsCase(rowsN, colsN), softmaxRowsCase(rowsN, colsN))
	cs = append(cs, logSoftmaxRowsCase(rowsN, colsN), layerNormRowsCase(rowsN, colsN))
	cs = append(cs, convCase([]int{64, 1, 28, 28}, []int{32, 1, 3, 3}), convCase([]int{64, 32, 13, 13}, []int{64, 32, 3, 3}))
	cs = append(cs, castCase(elems))
	cs = append(cs, resnetCase(1), resnetCase(32))
	return append(cs, gptForwardCase(charGPT(), 1), gptForwardCase(charGPT(), 32), gptGenerateCase(charGPT(), gptNewTokens))
}

// matmulCase is C = A·B with A m×k and B k×n.
func matmulCase(m, k, n int) benchCase {
	threads := []int{2}
	if 2*m*n*k < 1<<26 { // a small product: PyTorch may do better on one thread
		threads = []int{1, 2}
	}
	return benchCase{
		Name: fmt.Sprintf("sgemm %dx%dx%d", m, k, n), Kind: "matmul", M: m, K: k, NCols: n, Threads: threads,
		flops: 2 * float64(m) * float64(n) * float64(k), limit: limitFMA,
		build: func(dev *tensor.Device) (func() *tensor.Tensor, []*tensor.Tensor) {
			a, b := tensor.Randn(dev, m, k), tensor.Randn(dev, k, n)
			return func() *tensor.Tensor { return a.MatMul(b) }, ins(a, b)
		},
	}
}

// binaryCase is y = x op z over n floats (12 bytes an element).
func binaryCase(op string, n int) benchCase {
	f := map[string]func(x, z *tensor.Tensor) *tensor.Tensor{
		"add": (*tensor.Tensor).Add, "mul": (*tensor.Tensor).Mul,
	}[op]
	return benchCase{
		Name: op + " " + count(n), Kind: "binary", Op: op, N: n, Threads: []int{2},
		bytes: 12 * float64(n), limit: limitDRAM,
		build: func(dev *tensor.Device) (func() *tensor.Tensor, []*tensor.Tensor) {
			x, z := tensor.Randn(dev, n), tensor.Randn(dev, n)
			return func() *tensor.Tensor { return f(x, z) }, ins(x, z)
		},
	}
}

// unaryCase is y = op(x) over n floats (8 bytes an element).
func unaryCase(op string, n int) benchCase {
	f := map[string]func(x *tensor.Tensor) *tensor.Tensor{
		"relu": (*tensor.Tensor).Relu, "tanh": (*tensor.Tensor).Tanh, "sigmoid": (*tensor.Tensor).Sigmoid,
		"gelu": (*tensor.Tensor).Gelu, "exp": (*tensor.Tensor).Exp,
	}[op]
	return benchCase{
		Name: op + " " + count(n), Kind: "unary", Op: op, N: n, Threads: []int{2},
		bytes: 8 * float64(n), limit: limitDRAM,
		build: func(dev *tensor.Device) (func() *tensor.Tensor, []*tensor.Tensor) {
			x := tensor.Randn(dev, n)
			return func() *tensor.Tensor { return f(x) }, ins(x)
		},
	}
}

// chainCase is y = relu(x*z + x) * 0.5 over n floats: four elementwise
// ops. Fused, one kernel reads x and z and writes y (12 bytes an element);
// unfused, four kernels move 12+12+8+8 bytes an element.
func chainCase(unfused bool, n int) benchCase {
	name, bytes := "chain4 fused "+count(n), 12*float64(n)
	if unfused {
		name, bytes = "chain4 unfused "+count(n), 40*float64(n)
	}
	return benchCase{
		Name: name, Kind: "chain", N: n, Threads: []int{2},
		bytes: bytes, limit: limitDRAM, unfused: unfused,
		build: func(dev *tensor.Device) (func() *tensor.Tensor, []*tensor.Tensor) {
			x, z := tensor.Randn(dev, n), tensor.Randn(dev, n)
			return func() *tensor.Tensor { return x.Mul(z).Add(x).Relu().MulScalar(0.5) }, ins(x, z)
		},
	}
}

// sumRowsCase sums each row of a rows×cols matrix.
func sumRowsCase(rows, cols int) benchCase {
	return benchCase{
		Name: fmt.Sprintf("sum rows %dx%d", rows, cols), Kind: "sum_rows", Rows: rows, Cols: cols, Threads: []int{2},
		bytes: 4 * float64(rows*cols+rows), limit: limitDRAM,
		build: func(dev *tensor.Device) (func() *tensor.Tensor, []*tensor.Tensor) {
			x := tensor.Randn(dev, rows, cols)
			return func() *tensor.Tensor { return x.Sum(1) }, ins(x)
		},
	}
}

// softmaxRowsCase is the softmax of each row of a rows×cols matrix; bytes
// count one read and one write, what a single-pass kernel moves.
func softmaxRowsCase(rows, cols int) benchCase {
	return rowsOpCase("softmax rows", "softmax_rows", rows, cols, func(x *tensor.Tensor) *tensor.Tensor { return x.Softmax(1) })
}

// logSoftmaxRowsCase is softmaxRowsCase's log-softmax.
func logSoftmaxRowsCase(rows, cols int) benchCase {
	return rowsOpCase("log-softmax rows", "log_softmax_rows", rows, cols, func(x *tensor.Tensor) *tensor.Tensor { return x.LogSoftmax(1) })
}

// layerNormRowsCase is the layer norm of each row (no weight or bias, eps
// 1e-5), counted as softmaxRowsCase is.
func layerNormRowsCase(rows, cols int) benchCase {
	return rowsOpCase("layernorm rows", "layernorm_rows", rows, cols, func(x *tensor.Tensor) *tensor.Tensor { return x.LayerNorm(1, nil, nil, 1e-5) })
}

// rowsOpCase is f applied to a rows×cols matrix row by row; bytes count one
// read and one write.
func rowsOpCase(name, kind string, rows, cols int, f func(*tensor.Tensor) *tensor.Tensor) benchCase {
	return benchCase{
		Name: fmt.Sprintf("%s %dx%d", name, rows, cols), Kind: kind, Rows: rows, Cols: cols, Threads: []int{2},
		bytes: 8 * float64(rows*cols), limit: limitDRAM,
		build: func(dev *tensor.Device) (func() *tensor.Tensor, []*tensor.Tensor) {
			x := tensor.Randn(dev, rows, cols)
			return func() *tensor.Tensor { return f(x) }, ins(x)
		},
	}
}

// convCase is a stride-1, unpadded 2-D convolution (the reference CNN's
// layers), forward.
func convCase(x, w []int) benchCase {
	oh, ow := x[2]-w[2]+1, x[3]-w[3]+1
	flops := 2 * float64(x[0]*w[0]*oh*ow) * float64(w[1]*w[2]*w[3])
	return benchCase{
		Name: fmt.Sprintf("conv2d %dx%dx%dx%d * %dx%dx%dx%d", x[0], x[1], x[2], x[3], w[0], w[1], w[2], w[3]),
		Kind: "conv2d", X: x, W: w, Threads: []int{2}, flops: flops, limit: limitFMA,
		build: func(dev *tensor.Device) (func() *tensor.Tensor, []*tensor.Tensor) {
			xt, wt := tensor.Randn(dev, x...), tensor.Randn(dev, w...)
			return func() *tensor.Tensor { return xt.Conv2d(wt, nil, tensor.ConvOptions{}) }, ins(xt, wt)
		},
	}
}

// castCase converts n floats to float16 (6 bytes an element).
func castCase(n int) benchCase {
	return benchCase{
		Name: "to float16 " + count(n), Kind: "to_f16", N: n, Threads: []int{2},
		bytes: 6 * float64(n), limit: limitDRAM,
		build: func(dev *tensor.Device) (func() *tensor.Tensor, []*tensor.Tensor) {
			x := tensor.Randn(dev, n)
			return func() *tensor.Tensor { return x.Cast(tensor.Float16) }, ins(x)
		},
	}
}

// ins lists a benchmark's inputs.
func ins(ts ...*tensor.Tensor) []*tensor.Tensor { return ts }

// count names an element count: 10M, 4k, or the number.
func count(n int) string {
	switch {
	case n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}
