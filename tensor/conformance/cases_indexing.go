package conformance

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

func indexingCases() []testCase {
	var cs []testCase
	// Cat: inputs that differ along dim, in every layout.
	for _, dim := range []int{0, 1, -1} {
		for _, l := range []layout{contiguous, transposed, strided, expanded} {
			cs = append(cs, testCase{name: caseName(fmt.Sprintf("cat(%d)", dim), "float32", "3 inputs", l.name), run: func(e *env) {
				base := []int{3, 4, 5}
				var ts []*tensor.Tensor
				var rs []*ref.Array
				for i := range 3 {
					sh := append([]int(nil), base...)
					d := (dim + 3) % 3
					sh[d] = i + 2 // 2, 3, 4 along dim
					p := e.input(tensor.Float32, normal, l, sh...)
					ts, rs = append(ts, p.T), append(rs, p.R)
				}
				e.expect("Cat", tensor.Float32, ref.Cat(dim, rs...), exact, func() *tensor.Tensor { return tensor.Cat(dim, ts...) })
				// Pending copies are read from what they copy.
				e.expect("Cat of Contiguous parts", tensor.Float32, ref.Cat(dim, rs...), exact, func() *tensor.Tensor {
					parts := make([]*tensor.Tensor, len(ts))
					for i, t := range ts {
						parts[i] = t.Contiguous()
					}
					return tensor.Cat(dim, parts...)
				})
			}})
		}
	}
	// Heads merged back ([batch, heads, length, size] permuted and reshaped
	// to [batch, length, features], a copy) written into regions of a Cat.
	for _, dim := range []int{0, 1, 2} {
		cs = append(cs, testCase{name: caseName(fmt.Sprintf("cat(%d)", dim), "float32", "merged heads"), run: func(e *env) {
			var ts []*tensor.Tensor
			var rs []*ref.Array
			for range 3 {
				p := e.input(tensor.Float32, normal, contiguous, 2, 3, 4, 5)
				ts = append(ts, p.T.Permute(0, 2, 1, 3).Reshape(2, 4, 15))
				rs = append(rs, p.R.Permute(0, 2, 1, 3).Reshape(2, 4, 15))
			}
			e.expect("Cat", tensor.Float32, ref.Cat(dim, rs...), exact, func() *tensor.Tensor { return tensor.Cat(dim, ts...) })
		}})
	}
	cs = append(cs, testCase{name: caseName("cat", "int32", "single"), run: func(e *env) {
		p := e.input(tensor.Int32, ints(-9, 9), contiguous, 4)
		e.expect("Cat of one", tensor.Int32, ref.Cat(0, p.R), exact, func() *tensor.Tensor { return tensor.Cat(0, p.T) })
	}})
	for _, dim := range []int{0, 1, -1} {
		for _, l := range []layout{contiguous, transposed, strided} {
			cs = append(cs, testCase{name: caseName(fmt.Sprintf("stack(%d)", dim), "float32", "2x4,2x4,2x4", l.name), run: func(e *env) {
				var ts []*tensor.Tensor
				var rs []*ref.Array
				for range 3 {
					p := e.input(tensor.Float32, normal, l, 2, 4)
					ts, rs = append(ts, p.T), append(rs, p.R)
				}
				e.expect("Stack", tensor.Float32, ref.Stack(dim, rs...), exact, func() *tensor.Tensor { return tensor.Stack(dim, ts...) })
			}})
		}
	}
	type gatherCase struct {
		dim        int
		src, index []int
	}
	for _, g := range []gatherCase{{0, []int{5, 4}, []int{7, 4}}, {1, []int{5, 4}, []int{5, 9}}, {-1, []int{3, 4, 6}, []int{2, 3, 2}}, {1, []int{3, 4, 6}, []int{3, 1, 6}}} {
		for _, l := range []layout{contiguous, transposed, strided} {
			cs = append(cs, testCase{name: caseName(fmt.Sprintf("gather(%d)", g.dim), "float32", shapesName(g.src, g.index), l.name), run: func(e *env) {
				x := e.input(tensor.Float32, normal, l, g.src...)
				n := g.src[(g.dim+len(g.src))%len(g.src)]
				idx := e.input(tensor.Int32, ints(0, n-1), l, g.index...)
				e.expect("Gather", tensor.Float32, ref.Gather(x.R, g.dim, idx.R), exact, func() *tensor.Tensor { return x.T.Gather(g.dim, idx.T) })
			}})
		}
	}
	for _, dim := range []int{0, 1, -1} {
		for _, l := range []layout{contiguous, transposed, expanded} {
			sh := []int{4, 5, 6}
			cs = append(cs, testCase{name: caseName(fmt.Sprintf("index_select(%d)", dim), "float32", shapeName(sh), l.name), run: func(e *env) {
				x := e.input(tensor.Float32, normal, l, sh...)
				n := sh[(dim+3)%3]
				idx := e.input(tensor.Int32, ints(0, n-1), contiguous, 7) // with repeats
				e.expect("IndexSelect", tensor.Float32, ref.IndexSelect(x.R, dim, idx.R), exact, func() *tensor.Tensor { return x.T.IndexSelect(dim, idx.T) })
			}})
		}
	}
	return cs
}
