package conformance

import (
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// viewOp is a shape operation applied alike to a tensor and its reference.
type viewOp struct {
	name  string
	shape []int // the input's logical shape
	dev   func(*tensor.Tensor) *tensor.Tensor
	ref   func(*ref.Array) *ref.Array
	// zeroCopy: the result must share memory; its strides are checked
	// against the reference view's (for a contiguous input).
	zeroCopy bool
}

func viewOps() []viewOp {
	return []viewOp{
		{"reshape(5,-1)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(5, -1) }, func(a *ref.Array) *ref.Array { return a.Reshape(5, -1) }, true},
		{"reshape(-1)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape(-1) }, func(a *ref.Array) *ref.Array { return a.Reshape(-1) }, true},
		{"reshape(scalar)", []int{1, 1}, func(x *tensor.Tensor) *tensor.Tensor { return x.Reshape() }, func(a *ref.Array) *ref.Array { return a.Reshape() }, true},
		{"flatten(0,1)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Flatten(0, 1) }, func(a *ref.Array) *ref.Array { return a.Flatten(0, 1) }, true},
		{"flatten(1,-1)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Flatten(1, -1) }, func(a *ref.Array) *ref.Array { return a.Flatten(1, -1) }, true},
		{"transpose(0,2)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Transpose(0, 2) }, func(a *ref.Array) *ref.Array { return a.Transpose(0, 2) }, true},
		{"T", []int{3, 7}, func(x *tensor.Tensor) *tensor.Tensor { return x.T() }, func(a *ref.Array) *ref.Array { return a.T() }, true},
		{"permute(2,0,1)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Permute(2, 0, 1) }, func(a *ref.Array) *ref.Array { return a.Permute(2, 0, 1) }, true},
		{"permute(-1,1,0)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Permute(-1, 1, 0) }, func(a *ref.Array) *ref.Array { return a.Permute(-1, 1, 0) }, true},
		{"narrow(1,1,2)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Narrow(1, 1, 2) }, func(a *ref.Array) *ref.Array { return a.Narrow(1, 1, 2) }, true},
		{"narrow(-1,4,1)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Narrow(-1, 4, 1) }, func(a *ref.Array) *ref.Array { return a.Narrow(-1, 4, 1) }, true},
		{"slice(0,1,3,1)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Slice(0, 1, 3, 1) }, func(a *ref.Array) *ref.Array { return a.Slice(0, 1, 3, 1) }, true},
		{"slice(-1,0,5,2)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Slice(-1, 0, 5, 2) }, func(a *ref.Array) *ref.Array { return a.Slice(-1, 0, 5, 2) }, true},
		{"slice(1,1,4,3)", []int{3, 4, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Slice(1, 1, 4, 3) }, func(a *ref.Array) *ref.Array { return a.Slice(1, 1, 4, 3) }, true},
		{"expand", []int{3, 1, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Expand(2, 3, 4, 5) }, func(a *ref.Array) *ref.Array { return a.Expand(2, 3, 4, 5) }, true},
		{"expand(-1)", []int{3, 1, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Expand(-1, 6, -1) }, func(a *ref.Array) *ref.Array { return a.Expand(-1, 6, -1) }, true},
		{"squeeze()", []int{3, 1, 5, 1}, func(x *tensor.Tensor) *tensor.Tensor { return x.Squeeze() }, func(a *ref.Array) *ref.Array { return a.Squeeze() }, true},
		{"squeeze(1)", []int{3, 1, 5, 1}, func(x *tensor.Tensor) *tensor.Tensor { return x.Squeeze(1) }, func(a *ref.Array) *ref.Array { return a.Squeeze(1) }, true},
		{"squeeze(-1,0)", []int{3, 1, 5, 1}, func(x *tensor.Tensor) *tensor.Tensor { return x.Squeeze(-1, 0) }, func(a *ref.Array) *ref.Array { return a.Squeeze(-1, 0) }, true},
		{"unsqueeze(0)", []int{3, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Unsqueeze(0) }, func(a *ref.Array) *ref.Array { return a.Unsqueeze(0) }, true},
		{"unsqueeze(-1)", []int{3, 5}, func(x *tensor.Tensor) *tensor.Tensor { return x.Unsqueeze(-1) }, func(a *ref.Array) *ref.Array { return a.Unsqueeze(-1) }, true},
		{"unsqueeze(scalar)", []int{}, func(x *tensor.Tensor) *tensor.Tensor { return x.Unsqueeze(0) }, func(a *ref.Array) *ref.Array { return a.Unsqueeze(0) }, true},
		{"contiguous", []int{4, 6}, func(x *tensor.Tensor) *tensor.Tensor { return x.Contiguous() }, func(a *ref.Array) *ref.Array { return a.Contiguous() }, false},
		{"chain", []int{6, 5, 4}, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Transpose(0, 2).Slice(1, 1, 5, 1).Slice(2, 1, 6, 2).Narrow(1, 2, 1).Expand(4, 2, 3).Unsqueeze(0).Squeeze(0)
		}, func(a *ref.Array) *ref.Array {
			return a.Transpose(0, 2).Slice(1, 1, 5, 1).Slice(2, 1, 6, 2).Narrow(1, 2, 1).Expand(4, 2, 3).Unsqueeze(0).Squeeze(0)
		}, false},
		{"chain_then_op", []int{6, 5, 4}, func(x *tensor.Tensor) *tensor.Tensor {
			return x.Permute(1, 2, 0).Narrow(2, 1, 4).Reshape(5, -1).Contiguous().T()
		}, func(a *ref.Array) *ref.Array {
			return a.Permute(1, 2, 0).Narrow(2, 1, 4).Reshape(5, -1).Contiguous().T()
		}, false},
	}
}

func viewCases() []testCase {
	var cs []testCase
	for _, v := range viewOps() {
		for _, l := range layoutsFor(v.shape) {
			cs = append(cs, testCase{name: caseName(v.name, "float32", shapeName(v.shape), l.name), run: func(e *env) {
				p := e.input(tensor.Float32, normal, l, v.shape...)
				want := v.ref(p.R)
				got := e.expect(v.name, tensor.Float32, want, exact, func() *tensor.Tensor { return v.dev(p.T) })
				if v.zeroCopy && l.name == contiguous.name && !sameStrides(want.Shape(), got.Strides(), want.Strides()) {
					e.errorf("%s of a contiguous %v: strides %v, want the zero-copy view's %v", v.name, v.shape, got.Strides(), want.Strides())
				}
			}})
		}
	}
	cs = append(cs, castCases()...)
	return cs
}

// castCases check Cast between float32, int32 and bool.
func castCases() []testCase {
	type cast struct {
		from, to tensor.DType
		g        gen
		ref      func(float64) float64
	}
	casts := []cast{
		{tensor.Float32, tensor.Int32, uniform(-100, 100), truncate},
		{tensor.Float32, tensor.Bool, ints(-1, 1), func(v float64) float64 { return b2f(v != 0) }},
		{tensor.Int32, tensor.Float32, ints(-1<<24, 1<<24), identity},
		{tensor.Int32, tensor.Bool, ints(-2, 2), func(v float64) float64 { return b2f(v != 0) }},
		{tensor.Bool, tensor.Float32, ints(0, 1), identity},
		{tensor.Bool, tensor.Int32, ints(0, 1), identity},
		{tensor.Float32, tensor.Float32, normal, identity},
	}
	var cs []testCase
	for _, c := range casts {
		for _, l := range []layout{contiguous, transposed} {
			sh := []int{5, 7}
			cs = append(cs, testCase{name: caseName("cast", c.from.String()+"->"+c.to.String(), shapeName(sh), l.name), run: func(e *env) {
				p := e.input(c.from, c.g, l, sh...)
				e.expect("Cast", c.to, ref.Map(p.R, c.ref), exact, func() *tensor.Tensor { return p.T.Cast(c.to) })
			}})
		}
	}
	return cs
}

func truncate(v float64) float64 {
	if v < 0 {
		return -float64(int64(-v))
	}
	return float64(int64(v))
}

func identity(v float64) float64 { return v }

// sameStrides compares the strides of two views of shape, ignoring
// dimensions of size one, whose stride is arbitrary.
func sameStrides(shape, a, b []int) bool {
	if len(a) != len(shape) || len(b) != len(shape) {
		return false
	}
	for i, n := range shape {
		if n != 1 && a[i] != b[i] {
			return false
		}
	}
	return true
}
