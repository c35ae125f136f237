package conformance

import (
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// countKernels realizes build's result from realized inputs and returns it
// with the number of kernels that took.
func countKernels(e *env, build func() *tensor.Tensor) (*tensor.Tensor, int) {
	e.t.Helper()
	e.noErr(e.dev.Sync(), "Sync before counting")
	e.dev.ResetFusionStats()
	out := build()
	e.noErr(out.Realize(), "Realize")
	return out, e.dev.FusionStats().Kernels
}

// fusionCase checks a graph's value in both modes and its kernel count: want
// kernels with fusion on, more than that with fusion off.
func fusionCase(name string, want int, setup func(e *env) (build func() *tensor.Tensor, ref *ref.Array, t tol)) testCase {
	return testCase{name: name, run: func(e *env) {
		build, r, t := setup(e)
		e.poison(tensor.Float32, r.Size())
		out, n := countKernels(e, build)
		switch {
		case e.fusion && n != want:
			e.errorf("%s with fusion on: %d kernels, want %d", name, n, want)
		case !e.fusion && n <= want:
			e.errorf("%s with fusion off: %d kernels, want more than %d", name, n, want)
		}
		if e.t.Failed() {
			e.dev.SetFusionReport(true)
			defer e.dev.SetFusionReport(false)
			e.dev.ResetFusionStats()
			_, _ = countKernels(e, build)
			for _, k := range e.dev.FusionReport() {
				e.t.Logf("kernel: %s", k)
			}
		}
		e.compare(name, out, tensor.Float32, r, t)
	}}
}

func fusionCases() []testCase {
	return []testCase{
		fusionCase("elementwise_chain_of_4", 1, func(e *env) (func() *tensor.Tensor, *ref.Array, tol) {
			x, y, z := e.randn(33, 65), e.randn(65), e.randn(33, 1)
			want := ref.Mul(ref.Tanh(ref.Add(ref.Map(x.R, func(v float64) float64 { return 2 * v }), y.R)), z.R)
			return func() *tensor.Tensor { return x.T.MulScalar(2).Add(y.T).Tanh().Mul(z.T) }, want, f32
		}),
		fusionCase("matmul_add_relu", 1, func(e *env) (func() *tensor.Tensor, *ref.Array, tol) {
			x, w, b := e.randn(37, 29), e.randn(29, 23), e.randn(23)
			want := ref.Relu(ref.Add(ref.MatMul(x.R, w.R), b.R))
			return func() *tensor.Tensor { return x.T.MatMul(w.T).Add(b.T).Relu() }, want, matmulTol(x.R, w.R)
		}),
		fusionCase("mul_add", 1, func(e *env) (func() *tensor.Tensor, *ref.Array, tol) {
			x, y, z := e.randn(7, 9), e.randn(7, 9), e.randn(9)
			return func() *tensor.Tensor { return x.T.Mul(y.T).Add(z.T) }, ref.Add(ref.Mul(x.R, y.R), z.R), f32
		}),
		fusionCase("mul_sum", 1, func(e *env) (func() *tensor.Tensor, *ref.Array, tol) {
			x, y := e.randn(7, 130), e.randn(130)
			p := ref.Mul(x.R, y.R)
			return func() *tensor.Tensor { return x.T.Mul(y.T).Sum(1) }, ref.Sum(p, false, 1), sumTol(1e-5, 130, reduceSq(p, false, 1))
		}),
		fusionCase("conv_batchnorm_relu", 1, func(e *env) (func() *tensor.Tensor, *ref.Array, tol) {
			x, w := e.randn(2, 3, 8, 7), e.randn(4, 3, 3, 3)
			rm, rv, g, b := e.randn(4), e.f32(uniform(0.5, 2), 4), e.randn(4), e.randn(4)
			opt := tensor.ConvOptions{Padding: []int{1}}
			c := ref.Conv(x.R, w.R, nil, ref.ConvOptions{Padding: []int{1}})
			y, _, _ := ref.BatchNorm(c, rm.R, rv.R, g.R, b.R, false, 0.1, 1e-5)
			sq := ref.Conv(ref.Mul(x.R, x.R), ref.Mul(w.R, w.R), nil, ref.ConvOptions{Padding: []int{1}})
			// The conv's error, carried through the affine map of batch norm.
			scale := ref.Mul(sumTol(1e-5, 27, sq).scale, ref.Abs(ref.Div(g.R, ref.Sqrt(rv.R))).Reshape(4, 1, 1))
			return func() *tensor.Tensor {
				return x.T.Conv2d(w.T, nil, opt).BatchNorm(rm.T, rv.T, g.T, b.T, false, 0.1, 1e-5).Relu()
			}, ref.Relu(y), tol{rel: 1e-5, abs: 1e-5, scale: scale}
		}),
	}
}
