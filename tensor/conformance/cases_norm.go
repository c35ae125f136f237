package conformance

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// optional returns a pair of the given shape when on, else nils.
func (e *env) optional(on bool, g gen, shape ...int) (*tensor.Tensor, *ref.Array) {
	if !on {
		return nil, nil
	}
	p := e.f32(g, shape...)
	return p.T, p.R
}

func normCases() []testCase {
	var cs []testCase
	type ln struct {
		shape  []int
		dims   int
		affine bool
	}
	for _, c := range []ln{{[]int{4, 7}, 1, true}, {[]int{2, 3, 5}, 2, false}, {[]int{2, 3, 5}, 1, true}, {[]int{3, 1000}, 1, true}, {[]int{6}, 1, false}} {
		for _, l := range []layout{contiguous, transposed, strided} {
			if !l.ok(c.shape) {
				continue
			}
			cs = append(cs, testCase{name: caseName(fmt.Sprintf("layer_norm(%d,affine=%v)", c.dims, c.affine), "float32", shapeName(c.shape), l.name), run: func(e *env) {
				x := e.input(tensor.Float32, scaled(2), l, c.shape...)
				tail := c.shape[len(c.shape)-c.dims:]
				wt, wr := e.optional(c.affine, normal, tail...)
				bt, br := e.optional(c.affine, normal, tail...)
				want := ref.LayerNorm(x.R, c.dims, wr, br, 1e-5)
				e.expect("LayerNorm", tensor.Float32, want, normTol(numElements(tail)), func() *tensor.Tensor { return x.T.LayerNorm(c.dims, wt, bt, 1e-5) })
			}})
		}
	}
	type bn struct {
		shape    []int
		training bool
		affine   bool
	}
	for _, c := range []bn{{[]int{8, 3}, true, true}, {[]int{2, 3, 5, 4}, true, false}, {[]int{2, 3, 5, 4}, false, true}, {[]int{4, 5, 7}, true, true}, {[]int{4, 5, 7}, false, false}} {
		for _, l := range []layout{contiguous, transposed} {
			cs = append(cs, testCase{name: caseName(fmt.Sprintf("batch_norm(training=%v,affine=%v)", c.training, c.affine), "float32", shapeName(c.shape), l.name), run: func(e *env) {
				checkBatchNorm(e, c.shape, c.training, c.affine, l)
			}})
		}
	}
	type gn struct {
		shape  []int
		groups int
		affine bool
	}
	for _, c := range []gn{{[]int{2, 6, 5}, 3, true}, {[]int{2, 4, 3, 3}, 2, false}, {[]int{3, 4, 5}, 1, true}, {[]int{2, 4, 5}, 4, true}} {
		for _, l := range []layout{contiguous, transposed} {
			cs = append(cs, testCase{name: caseName(fmt.Sprintf("group_norm(%d,affine=%v)", c.groups, c.affine), "float32", shapeName(c.shape), l.name), run: func(e *env) {
				x := e.input(tensor.Float32, scaled(2), l, c.shape...)
				wt, wr := e.optional(c.affine, normal, c.shape[1])
				bt, br := e.optional(c.affine, normal, c.shape[1])
				want := ref.GroupNorm(x.R, c.groups, wr, br, 1e-5)
				n := numElements(c.shape[1:]) / c.groups
				e.expect("GroupNorm", tensor.Float32, want, normTol(n), func() *tensor.Tensor { return x.T.GroupNorm(c.groups, wt, bt, 1e-5) })
			}})
		}
	}
	return cs
}

// checkBatchNorm checks the output and, in training, the running statistics
// that BatchNorm updates (PyTorch's in-place update, with the unbiased batch
// variance).
func checkBatchNorm(e *env, shape []int, training, affine bool, l layout) {
	const momentum, eps = 0.1, 1e-5
	c := shape[1]
	x := e.input(tensor.Float32, uniform(-1, 3), l, shape...)
	rm := e.f32(normal, c)
	rv := e.f32(uniform(0.5, 2), c)
	wt, wr := e.optional(affine, normal, c)
	bt, br := e.optional(affine, normal, c)
	want, wantMean, wantVar := ref.BatchNorm(x.R, rm.R, rv.R, wr, br, training, momentum, eps)
	n := numElements(shape) / c
	tl := normTol(n)
	e.expect("BatchNorm", tensor.Float32, want, tl, func() *tensor.Tensor {
		return x.T.BatchNorm(rm.T, rv.T, wt, bt, training, momentum, eps)
	})
	e.compare("BatchNorm running mean", rm.T, tensor.Float32, wantMean, tl)
	e.compare("BatchNorm running var", rv.T, tensor.Float32, wantVar, tl)
}
