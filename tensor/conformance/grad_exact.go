package conformance

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// exactGrad is a gradient case at points where central differences do not
// give PyTorch's convention (a kink, a jump, a zero factor, 0^b): the
// gradients of sum(f(inputs)) are given, as PyTorch 1.13 computes them.
type exactGrad struct {
	name  string
	shape []int       // of every input
	ins   [][]float64 // the inputs' values; each requires a gradient
	f     func(x []*tensor.Tensor) *tensor.Tensor
	want  [][]float64 // the gradient of each input
}

func exactGradOps() []exactGrad {
	inf, nan := math.Inf(1), math.NaN()
	unary := func(name string, x, want []float64, f func(*tensor.Tensor) *tensor.Tensor) exactGrad {
		return exactGrad{name, []int{len(x)}, [][]float64{x}, func(t []*tensor.Tensor) *tensor.Tensor { return f(t[0]) }, [][]float64{want}}
	}
	steps := []float64{-1.5, -1, 0, 0.5, 2}
	zero5 := []float64{0, 0, 0, 0, 0}
	prod := func(name string, x, want []float64, axes ...int) exactGrad {
		return exactGrad{name, []int{2, 3}, [][]float64{x}, func(t []*tensor.Tensor) *tensor.Tensor { return t[0].Prod(axes...) }, [][]float64{want}}
	}
	return []exactGrad{
		unary("sign", steps, zero5, (*tensor.Tensor).Sign),
		unary("floor", steps, zero5, (*tensor.Tensor).Floor),
		unary("ceil", steps, zero5, (*tensor.Tensor).Ceil),
		unary("clamp_at_bounds", []float64{nan, -3, -2, 0, 1, 1.5}, []float64{0, 0, 1, 1, 1, 0},
			func(t *tensor.Tensor) *tensor.Tensor { return t.Clamp(-2, 1) }),
		unary("clamp_to_a_point", []float64{0, 0.5, 1}, []float64{0, 1, 0},
			func(t *tensor.Tensor) *tensor.Tensor { return t.Clamp(0.5, 0.5) }),
		prod("prod(1)_one_zero", []float64{2, 0, 3, 1, 2, 3}, []float64{0, 6, 0, 6, 3, 2}, 1),
		prod("prod(1)_two_zeros", []float64{2, 0, 0, 1, 2, 3}, []float64{0, 0, 0, 6, 3, 2}, 1),
		prod("prod(0)_one_zero", []float64{2, 0, 3, 1, 2, 3}, []float64{1, 2, 3, 2, 0, 3}, 0),
		prod("prod_one_zero", []float64{2, 0, 3, 1, 2, 3}, []float64{0, 36, 0, 0, 0, 0}),
		prod("prod_two_zeros", []float64{2, 0, 3, 1, 0, 3}, []float64{0, 0, 0, 0, 0, 0}),
		{"pow_at_zero", []int{12},
			[][]float64{{0, 0, 0, 0, 0, 0, 2, 2, -2, -2, 0.5, 0.5}, {-1, 0, 0.5, 1, 2, 3, 0, -1, 2, 3, 0, 2.5}},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].Pow(t[1]) },
			[][]float64{
				{-inf, 0, inf, 1, 0, 0, 0, -0.25, -4, 12, 0, 0.8838834762573242},
				{-inf, 0, 0, 0, 0, 0, 0.6931471824645996, 0.3465735912322998, nan, nan, -0.6931471824645996, -0.12253226339817047},
			}},
		// PyTorch's max pooling sends a window's gradient to its last NaN.
		{"max_pool2d_2x2_two_nans", []int{1, 1, 2, 4}, [][]float64{{nan, 1, nan, 2, 3, nan, 0, 5}},
			func(t []*tensor.Tensor) *tensor.Tensor {
				return t[0].MaxPool2d(tensor.PoolOptions{Kernel: []int{2, 2}})
			},
			[][]float64{{0, 0, 1, 0, 0, 1, 0, 0}}},
		{"max_pool2d_3x3_three_nans", []int{1, 1, 3, 3}, [][]float64{{nan, 1, 2, 3, nan, 4, 5, 6, nan}},
			func(t []*tensor.Tensor) *tensor.Tensor {
				return t[0].MaxPool2d(tensor.PoolOptions{Kernel: []int{3, 3}})
			},
			[][]float64{{0, 0, 0, 0, 0, 0, 0, 0, 1}}},
		{"max_pool2d_overlapping_nans", []int{1, 1, 3, 3}, [][]float64{{nan, 1, 2, 3, nan, 4, 5, 6, nan}},
			func(t []*tensor.Tensor) *tensor.Tensor {
				return t[0].MaxPool2d(tensor.PoolOptions{Kernel: []int{2, 2}, Stride: []int{1, 1}})
			},
			[][]float64{{0, 0, 0, 0, 3, 0, 0, 0, 1}}},
		// A window of -Inf sends its gradient to its first element inside
		// the input, as PyTorch's max pooling does.
		{"max_pool2d_all_minus_inf", []int{1, 1, 1, 4}, [][]float64{{1, -inf, -inf, -inf}},
			func(t []*tensor.Tensor) *tensor.Tensor {
				return t[0].MaxPool2d(tensor.PoolOptions{Kernel: []int{1, 2}})
			},
			[][]float64{{1, 0, 1, 0}}},
		{"max_pool2d_minus_inf_padded", []int{1, 1, 1, 4}, [][]float64{{1, -inf, -inf, -inf}},
			func(t []*tensor.Tensor) *tensor.Tensor {
				return t[0].MaxPool2d(tensor.PoolOptions{Kernel: []int{1, 3}, Stride: []int{1, 1}, Padding: []int{0, 1}})
			},
			[][]float64{{2, 1, 1, 0}}},
		unary("pow_scalar(0)", []float64{0, -2, 3}, []float64{0, 0, 0}, func(t *tensor.Tensor) *tensor.Tensor { return t.PowScalar(0) }),
		unary("pow_scalar(0.5)_at_zero", []float64{0, 4}, []float64{inf, 0.25}, func(t *tensor.Tensor) *tensor.Tensor { return t.PowScalar(0.5) }),
		unary("pow_scalar(2)_at_zero", []float64{0, -2, 3}, []float64{0, -4, 6}, func(t *tensor.Tensor) *tensor.Tensor { return t.PowScalar(2) }),
	}
}

// checkExactGrad runs op forward and backward and compares the gradients
// with op.want to a few float32 ulps (infinities and NaN exactly).
func checkExactGrad(e *env, op exactGrad) {
	e.t.Helper()
	ts := make([]*tensor.Tensor, len(op.ins))
	for i, v := range op.ins {
		ts[i] = e.constant(tensor.Float32, v, op.shape...).T.SetRequiresGrad(true)
	}
	e.noErr(op.f(ts).Sum().Backward(), op.name+": Backward")
	for i, x := range ts {
		if x.Grad() == nil {
			e.errorf("%s: input %d has no gradient after Backward", op.name, i)
			continue
		}
		e.compareValues(op.name+": gradient", e.read(x.Grad()), ref.New(op.want[i], op.shape...), tol{rel: 1e-6})
	}
}

func exactGradCases() []testCase {
	var cs []testCase
	for _, op := range exactGradOps() {
		cs = append(cs, testCase{name: "exact_" + op.name, run: func(e *env) { checkExactGrad(e, op) }})
	}
	return cs
}
