package conformance

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// padWindowPools have windows that lie wholly in the padding (a dilation
// steps over the whole input): as in PyTorch, such a window's maximum is
// -Inf and its gradient reaches no input.
var padWindowPools = []poolCase{
	{[]int{1, 1, 1, 2}, tensor.PoolOptions{Kernel: []int{2, 1}, Stride: []int{1, 1}, Padding: []int{1, 0}, Dilation: []int{2, 1}}},
	{[]int{2, 3, 1, 5}, tensor.PoolOptions{Kernel: []int{2, 2}, Stride: []int{1, 2}, Padding: []int{1, 1}, Dilation: []int{2, 3}}},
	{[]int{1, 2, 3, 1}, tensor.PoolOptions{Kernel: []int{2, 2}, Stride: []int{1, 1}, Padding: []int{1, 1}, Dilation: []int{1, 2}}},
}

// padWindowCases check max pooling's forward value and backward over
// windows wholly in the padding.
func padWindowCases() []testCase {
	var cs []testCase
	for _, p := range padWindowPools {
		cs = append(cs, testCase{name: caseName("max_pool2d", "float32", poolName(p), "contiguous"), run: func(e *env) {
			x := e.inputOf(tensor.Float32, e.spaced(numElements(p.x)), contiguous, p.x...)
			want := ref.MaxPool(x.R, refPool(p.opt))
			if !hasInf(want) {
				e.fatalf("%v: no window lies wholly in the padding", p.opt)
			}
			e.expect("MaxPool2d", tensor.Float32, want, exact, func() *tensor.Tensor { return x.T.MaxPool2d(p.opt) })
			// The gradient of sum(y*w) over the finite outputs, w zero
			// elsewhere: a -Inf output's gradient must go nowhere.
			wv := e.fill(tensor.Float32, normal, want.Size())
			for i, v := range want.Values() {
				if math.IsInf(v, 0) {
					wv[i] = 0
				}
			}
			w := e.constant(tensor.Float32, wv, want.Shape()...)
			xt := x.T.Detach().SetRequiresGrad(true)
			e.noErr(xt.MaxPool2d(p.opt).BackwardWith(w.T), "BackwardWith")
			loss := func(rs []*ref.Array) float64 {
				s := 0.0
				for i, v := range ref.MaxPool(rs[0], refPool(p.opt)).Values() {
					if !math.IsInf(v, 0) {
						s += v * wv[i]
					}
				}
				return s
			}
			g := numericGrad([]*ref.Array{x.R}, 0, loss)
			e.compare("gradient of MaxPool2d", xt.Grad(), tensor.Float32, g, gradTol(g))
		}})
	}
	return cs
}

func hasInf(a *ref.Array) bool {
	for _, v := range a.Values() {
		if math.IsInf(v, 0) {
			return true
		}
	}
	return false
}
