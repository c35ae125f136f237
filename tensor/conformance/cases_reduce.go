package conformance

import (
	"fmt"
	"math"
	"strings"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// reduction is one reducing op: its tensor forms with and without kept
// dimensions, its reference, and its tolerance for given input and axes.
type reduction struct {
	name     string
	dev      func(x *tensor.Tensor, keep bool, axes []int) *tensor.Tensor
	ref      func(x *ref.Array, keep bool, axes []int) *ref.Array
	tol      func(x *ref.Array, keep bool, axes []int) tol
	outDType tensor.DType
}

// reducedCount is the number of elements each output of a reduction over
// axes (all when empty) combines.
func reducedCount(shape []int, axes []int) int {
	if len(axes) == 0 {
		return numElements(shape)
	}
	n := 1
	for _, a := range axes {
		n *= shape[(a+len(shape))%len(shape)]
	}
	return n
}

func reductions() []reduction {
	sumT := func(x *ref.Array, keep bool, axes []int) tol {
		return sumTol(1e-5, reducedCount(x.Shape(), axes), reduceSq(x, keep, axes...))
	}
	meanT := func(x *ref.Array, keep bool, axes []int) tol {
		return meanTol(1e-5, reducedCount(x.Shape(), axes), reduceSq(x, keep, axes...))
	}
	varT := func(x *ref.Array, keep bool, axes []int) tol {
		// Squared deviations summed: the error of a sum of n terms of the
		// size of the mean square, relative to the variance.
		n := reducedCount(x.Shape(), axes)
		ms := ref.Mean(ref.Mul(x, x), keep, axes...)
		k := 4 * math.Sqrt(float64(n))
		return tol{rel: 1e-5, abs: 1e-6, scale: ref.Map(ms, func(v float64) float64 { return k * v })}
	}
	exactT := func(*ref.Array, bool, []int) tol { return exact }
	prodT := func(x *ref.Array, _ bool, axes []int) tol {
		// Each of the n-1 products rounds once, relative to the result.
		return tol{rel: 1e-5 + 2e-7*float64(reducedCount(x.Shape(), axes)), abs: 1e-6}
	}
	keepOr := func(keep bool, plain, kept func(...int) *tensor.Tensor, axes []int) *tensor.Tensor {
		if keep {
			return kept(axes...)
		}
		return plain(axes...)
	}
	return []reduction{
		{"sum", func(x *tensor.Tensor, k bool, a []int) *tensor.Tensor { return keepOr(k, x.Sum, x.SumKeepDim, a) },
			func(x *ref.Array, k bool, a []int) *ref.Array { return ref.Sum(x, k, a...) }, sumT, tensor.Float32},
		{"mean", func(x *tensor.Tensor, k bool, a []int) *tensor.Tensor { return keepOr(k, x.Mean, x.MeanKeepDim, a) },
			func(x *ref.Array, k bool, a []int) *ref.Array { return ref.Mean(x, k, a...) }, meanT, tensor.Float32},
		{"prod", func(x *tensor.Tensor, k bool, a []int) *tensor.Tensor {
			if k {
				return x.Prod(a...).Reshape(keptShape(x.Shape(), a)...)
			}
			return x.Prod(a...)
		}, func(x *ref.Array, k bool, a []int) *ref.Array { return ref.Prod(x, k, a...) }, prodT, tensor.Float32},
		{"max", func(x *tensor.Tensor, k bool, a []int) *tensor.Tensor { return keepOr(k, x.Max, x.MaxKeepDim, a) },
			func(x *ref.Array, k bool, a []int) *ref.Array { return ref.Max(x, k, a...) }, exactT, tensor.Float32},
		{"min", func(x *tensor.Tensor, k bool, a []int) *tensor.Tensor { return keepOr(k, x.Min, x.MinKeepDim, a) },
			func(x *ref.Array, k bool, a []int) *ref.Array { return ref.Min(x, k, a...) }, exactT, tensor.Float32},
		{"var(0)", func(x *tensor.Tensor, k bool, a []int) *tensor.Tensor {
			if k {
				return x.VarKeepDim(0, a...)
			}
			return x.Var(0, a...)
		}, func(x *ref.Array, k bool, a []int) *ref.Array { return ref.Var(x, 0, k, a...) }, varT, tensor.Float32},
		{"var(1)", func(x *tensor.Tensor, k bool, a []int) *tensor.Tensor {
			if k {
				return x.VarKeepDim(1, a...)
			}
			return x.Var(1, a...)
		}, func(x *ref.Array, k bool, a []int) *ref.Array { return ref.Var(x, 1, k, a...) }, varT, tensor.Float32},
	}
}

// argReductions take one axis and return Int32 positions.
func argReductions() []reduction {
	return []reduction{
		{"argmax", func(x *tensor.Tensor, _ bool, a []int) *tensor.Tensor { return x.ArgMax(a[0]) },
			func(x *ref.Array, _ bool, a []int) *ref.Array { return ref.ArgMax(x, a[0]) }, nil, tensor.Int32},
		{"argmin", func(x *tensor.Tensor, _ bool, a []int) *tensor.Tensor { return x.ArgMin(a[0]) },
			func(x *ref.Array, _ bool, a []int) *ref.Array { return ref.ArgMin(x, a[0]) }, nil, tensor.Int32},
	}
}

// reduceShape is an input shape with the axes reduced over it.
type reduceShape struct {
	shape []int
	axes  []int
}

var reduceShapes = []reduceShape{
	{[]int{}, nil}, {[]int{1}, nil}, {[]int{7}, nil}, {[]int{7}, []int{0}}, {[]int{3, 5}, []int{0}},
	{[]int{3, 5}, []int{1}}, {[]int{3, 5}, []int{-1}}, {[]int{2, 3, 4}, []int{0, 2}}, {[]int{2, 3, 4}, []int{1}},
	{[]int{2, 3, 4}, nil}, {[]int{4, 1, 3}, []int{1}}, {[]int{2, 3, 4}, []int{-1, 0, 1}}, {[]int{1, 1}, nil},
	{[]int{3, 129}, []int{1}}, {[]int{1000, 3}, []int{0}},
}

func axesName(axes []int) string {
	if axes == nil {
		return "all"
	}
	s := make([]string, len(axes))
	for i, a := range axes {
		s[i] = fmt.Sprint(a)
	}
	return "axes=" + strings.Join(s, ",")
}

func reduceCases() []testCase {
	var cs []testCase
	add := func(r reduction, rs reduceShape, keep bool, l layout) {
		name := r.name
		if keep {
			name += "_keepdim"
		}
		cs = append(cs, testCase{name: caseName(name, "float32", shapeName(rs.shape), axesName(rs.axes), l.name), large: isLarge(rs.shape), run: func(e *env) {
			x := e.input(tensor.Float32, normal, l, rs.shape...)
			t := exact
			if r.tol != nil {
				t = r.tol(x.R, keep, rs.axes)
			}
			e.expect(name, r.outDType, r.ref(x.R, keep, rs.axes), t, func() *tensor.Tensor { return r.dev(x.T, keep, rs.axes) })
		}})
	}
	for _, r := range reductions() {
		for _, rs := range reduceShapes {
			add(r, rs, false, contiguous)
		}
		for _, rs := range []reduceShape{{[]int{3, 5}, []int{1}}, {[]int{2, 3, 4}, []int{0, 2}}} {
			add(r, rs, true, contiguous)
		}
		for _, l := range allLayouts[1:] {
			add(r, reduceShape{[]int{4, 6}, []int{1}}, false, l)
			add(r, reduceShape{[]int{2, 3, 4}, []int{0, 2}}, true, l)
		}
		switch r.name { // a few large cases: they dominate the run time on emulated GPUs
		case "max", "var(1)":
			add(r, reduceShape{largeShape, []int{1}}, false, contiguous)
		case "sum":
			add(r, reduceShape{largeShape, []int{1}}, false, contiguous)
			add(r, reduceShape{largeShape, []int{0}}, false, contiguous)
			add(r, reduceShape{largeShape, nil}, false, contiguous)
			add(r, reduceShape{largeShape, []int{0}}, false, transposed)
		}
	}
	for _, r := range argReductions() {
		for _, rs := range []reduceShape{{[]int{7}, []int{0}}, {[]int{3, 5}, []int{0}}, {[]int{3, 5}, []int{-1}}, {[]int{2, 3, 4}, []int{1}}} {
			add(r, rs, false, contiguous)
		}
		for _, l := range allLayouts[1:] {
			add(r, reduceShape{[]int{4, 6}, []int{1}}, false, l)
		}
		if r.name == "argmax" {
			add(r, reduceShape{largeShape, []int{1}}, false, contiguous)
		}
	}
	cs = append(cs, testCase{name: caseName("argmax_ties", "float32", "4x6"), run: func(e *env) {
		x := e.input(tensor.Float32, ints(0, 2), contiguous, 4, 6)
		e.expect("ArgMax (first of ties)", tensor.Int32, ref.ArgMax(x.R, 1), exact, func() *tensor.Tensor { return x.T.ArgMax(1) })
		e.expect("ArgMin (first of ties)", tensor.Int32, ref.ArgMin(x.R, 0), exact, func() *tensor.Tensor { return x.T.ArgMin(0) })
	}})
	return cs
}

func softmaxCases() []testCase {
	type sm struct {
		shape []int
		axis  int
		l     layout
	}
	var list []sm
	for _, s := range []sm{{[]int{7}, 0, contiguous}, {[]int{3, 5}, 1, contiguous}, {[]int{3, 5}, 0, contiguous},
		{[]int{2, 3, 4}, 1, contiguous}, {[]int{2, 3, 4}, -1, contiguous}, {[]int{1, 1}, -1, contiguous}, {[]int{2, 1000}, -1, contiguous}} {
		list = append(list, s)
	}
	for _, l := range allLayouts[1:] {
		list = append(list, sm{[]int{4, 6}, -1, l}, sm{[]int{4, 6}, 0, l})
	}
	list = append(list, sm{largeShape, -1, contiguous}, sm{largeShape, 0, transposed})
	var cs []testCase
	for _, s := range list {
		for _, log := range []bool{false, true} {
			name := "softmax"
			if log {
				name = "log_softmax"
			}
			if isLarge(s.shape) && log != (s.axis == 0) { // large: softmax(-1) and log_softmax(0) only
				continue
			}
			cs = append(cs, testCase{name: caseName(fmt.Sprintf("%s(%d)", name, s.axis), "float32", shapeName(s.shape), s.l.name), large: isLarge(s.shape), run: func(e *env) {
				x := e.input(tensor.Float32, scaled(3), s.l, s.shape...)
				n := s.shape[(s.axis+len(s.shape))%len(s.shape)]
				if log {
					e.expect(name, tensor.Float32, ref.LogSoftmax(x.R, s.axis), softmaxTol(n), func() *tensor.Tensor { return x.T.LogSoftmax(s.axis) })
				} else {
					e.expect(name, tensor.Float32, ref.Softmax(x.R, s.axis), softmaxTol(n), func() *tensor.Tensor { return x.T.Softmax(s.axis) })
				}
			}})
		}
	}
	return cs
}

// keptShape is shape with the reduced axes (all when none) set to one.
func keptShape(shape, axes []int) []int {
	out := append([]int(nil), shape...)
	for i := range out {
		if len(axes) == 0 {
			out[i] = 1
		}
	}
	for _, a := range axes {
		out[(a+len(shape))%len(shape)] = 1
	}
	return out
}
