package conformance

import (
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// matmulShapes are torch.matmul operand pairs: vectors, matrices, broadcast
// batches, degenerate inner sizes and odd sizes.
var matmulShapes = [][2][]int{
	{{1, 1}, {1, 1}},
	{{3, 5}, {5, 7}},
	{{7}, {7}},
	{{7}, {7, 3}},
	{{4, 7}, {7}},
	{{2, 3, 7}, {7}},
	{{7}, {2, 7, 3}},
	{{2, 1, 3, 4}, {5, 4, 6}},
	{{4, 3, 5}, {5, 2}},
	{{3, 5}, {2, 5, 4}},
	{{17, 1}, {1, 19}},
	{{3, 0}, {0, 4}},
	{{0, 3}, {3, 2}},
	{{1, 64}, {64, 1}},
	{{33, 65}, {65, 17}},
	{{2, 31, 67}, {2, 67, 33}},
	{{2, 3, 5}, {1, 1, 5, 4}},
}

// matmulLayouts are layout pairs fed to a [3,4,5] x [3,5,6] product.
var matmulLayouts = [][2]layout{
	{transposed, contiguous}, {contiguous, transposed}, {transposed, transposed},
	{strided, contiguous}, {contiguous, strided}, {expanded, expanded}, {expanded, transposed},
}

func matmulCases() []testCase {
	var cs []testCase
	add := func(sa, sb []int, la, lb layout) {
		cs = append(cs, testCase{name: caseName("matmul", "float32", shapesName(sa, sb), la.name+","+lb.name), large: isLarge(sa, sb), run: func(e *env) {
			a, b := e.input(tensor.Float32, normal, la, sa...), e.input(tensor.Float32, normal, lb, sb...)
			e.expect("MatMul", tensor.Float32, ref.MatMul(a.R, b.R), matmulTol(a.R, b.R), func() *tensor.Tensor { return a.T.MatMul(b.T) })
		}})
	}
	for _, s := range matmulShapes {
		add(s[0], s[1], contiguous, contiguous)
	}
	for _, l := range matmulLayouts {
		add([]int{3, 4, 5}, []int{3, 5, 6}, l[0], l[1])
	}
	// A matrix broadcast over a batch, which the front end folds into one
	// product over the batch's rows when they are evenly spaced.
	for _, l := range matmulLayouts {
		add([]int{3, 4, 5}, []int{5, 6}, l[0], l[1])
	}
	add([]int{7}, []int{7, 3}, strided, transposed)
	add([]int{513, 1027}, []int{1027, 131}, contiguous, contiguous)
	add([]int{513, 1027}, []int{1027, 131}, transposed, transposed)
	return cs
}
