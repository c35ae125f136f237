package conformance

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// poolCase is one 2-D pooling window geometry.
type poolCase struct {
	x   []int
	opt tensor.PoolOptions
}

func poolName(p poolCase) string {
	o := p.opt
	s := shapeName(p.x) + ",k=" + shapeName(o.Kernel)
	if o.Stride != nil {
		s += ",stride=" + shapeName(o.Stride)
	}
	if o.Padding != nil {
		s += ",pad=" + shapeName(o.Padding)
	}
	if o.Dilation != nil {
		s += ",dil=" + shapeName(o.Dilation)
	}
	if o.CountExcludePad {
		s += ",exclude_pad"
	}
	return s
}

func refPool(o tensor.PoolOptions) ref.PoolOptions {
	return ref.PoolOptions{Kernel: o.Kernel, Stride: o.Stride, Padding: o.Padding, Dilation: o.Dilation, CountExcludePad: o.CountExcludePad}
}

var maxPools = []poolCase{
	{[]int{2, 3, 8, 8}, tensor.PoolOptions{Kernel: []int{2}}},
	{[]int{2, 3, 9, 8}, tensor.PoolOptions{Kernel: []int{3}, Stride: []int{2}, Padding: []int{1}}},
	{[]int{1, 2, 9, 11}, tensor.PoolOptions{Kernel: []int{2, 3}, Stride: []int{1, 2}, Dilation: []int{2}}},
	{[]int{1, 1, 5, 5}, tensor.PoolOptions{Kernel: []int{5}}},
	{[]int{3, 2, 7, 6}, tensor.PoolOptions{Kernel: []int{3, 2}, Stride: []int{2, 1}, Padding: []int{1, 1}}},
	{[]int{2, 3, 11, 13}, gappedPool},
}

// gappedPool's windows are disjoint with gaps between them (strides past
// the dilated spans), so that some inputs lie in no window.
var gappedPool = tensor.PoolOptions{Kernel: []int{2}, Stride: []int{3, 5}, Padding: []int{1}, Dilation: []int{1, 2}}

var avgPools = []poolCase{
	{[]int{2, 3, 8, 8}, tensor.PoolOptions{Kernel: []int{2}}},
	{[]int{2, 3, 9, 8}, tensor.PoolOptions{Kernel: []int{3}, Stride: []int{2}, Padding: []int{1}}},
	{[]int{2, 3, 9, 8}, tensor.PoolOptions{Kernel: []int{3}, Stride: []int{2}, Padding: []int{1}, CountExcludePad: true}},
	{[]int{1, 2, 7, 10}, tensor.PoolOptions{Kernel: []int{2, 4}, Stride: []int{1, 3}, Padding: []int{1, 2}}},
	{[]int{1, 2, 7, 10}, tensor.PoolOptions{Kernel: []int{2, 4}, Stride: []int{1, 3}, Padding: []int{1, 2}, CountExcludePad: true}},
	{[]int{2, 3, 11, 13}, gappedPool},
}

func poolCases() []testCase {
	var cs []testCase
	for i, p := range maxPools {
		for _, l := range poolLayouts(i) {
			cs = append(cs, testCase{name: caseName("max_pool2d", "float32", poolName(p), l.name), run: func(e *env) {
				x := e.input(tensor.Float32, normal, l, p.x...)
				e.expect("MaxPool2d", tensor.Float32, ref.MaxPool(x.R, refPool(p.opt)), exact, func() *tensor.Tensor { return x.T.MaxPool2d(p.opt) })
			}})
		}
	}
	for i, p := range avgPools {
		for _, l := range poolLayouts(i) {
			cs = append(cs, testCase{name: caseName("avg_pool2d", "float32", poolName(p), l.name), run: func(e *env) {
				x := e.input(tensor.Float32, normal, l, p.x...)
				e.expect("AvgPool2d", tensor.Float32, ref.AvgPool(x.R, refPool(p.opt)), f32, func() *tensor.Tensor { return x.T.AvgPool2d(p.opt) })
			}})
		}
	}
	for _, a := range [][4]int{{7, 5, 3, 2}, {6, 6, 1, 1}, {7, 5, 7, 5}, {2, 3, 4, 5}, {9, 4, 4, 3}} {
		for _, l := range poolLayouts(0) {
			sh := []int{2, 3, a[0], a[1]}
			cs = append(cs, testCase{name: caseName(fmt.Sprintf("adaptive_avg_pool2d(%d,%d)", a[2], a[3]), "float32", shapeName(sh), l.name), run: func(e *env) {
				x := e.input(tensor.Float32, normal, l, sh...)
				e.expect("AdaptiveAvgPool2d", tensor.Float32, ref.AdaptiveAvgPool(x.R, a[2], a[3]), f32, func() *tensor.Tensor {
					return x.T.AdaptiveAvgPool2d(a[2], a[3])
				})
			}})
		}
	}
	return cs
}

// poolLayouts gives the first geometry of a list every layout, the others
// contiguous and transposed inputs.
func poolLayouts(i int) []layout {
	if i == 0 {
		return allLayouts
	}
	return []layout{contiguous, transposed}
}
