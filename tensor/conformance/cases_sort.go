package conformance

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// fewValues draws from a handful of values, NaN among them, so that sorts
// meet ties and NaN.
func fewValues(r *rand.Rand) float64 {
	vals := []float64{-1.5, 0, 0.25, 2, math.NaN(), math.Inf(-1)}
	return vals[r.IntN(len(vals))]
}

// sortShapes are the shapes and axes the sorting rows run over: lengths of
// one, two, a power of two and not.
var sortShapes = []struct {
	shape []int
	axis  int
}{{[]int{7}, 0}, {[]int{3, 5}, 1}, {[]int{3, 5}, 0}, {[]int{2, 3, 9}, -1}, {[]int{4, 16}, 1}, {[]int{2, 33}, 1}, {[]int{4, 1}, 1}, {[]int{2, 2}, 0}}

// sortRows are Sort, ArgSort, TopK and Median.
func sortRows() []opRow {
	var rows []opRow
	for _, s := range sortShapes {
		n := s.shape[(s.axis+len(s.shape))%len(s.shape)]
		for _, desc := range []bool{false, true} {
			name := fmt.Sprintf("sort(%d,desc=%v)", s.axis, desc)
			values := func(a *ref.Array) *ref.Array { v, _ := ref.Sort(a, s.axis, desc); return v }
			positions := func(a *ref.Array) *ref.Array { _, i := ref.Sort(a, s.axis, desc); return i }
			rows = append(rows,
				unary(name+":values", in(s.shape...).spacedOut(), func(t *tensor.Tensor) *tensor.Tensor { v, _ := t.Sort(s.axis, desc); return v }, values).differentiable(),
				unary(name+":ties", in(s.shape...).from(fewValues), func(t *tensor.Tensor) *tensor.Tensor { v, _ := t.Sort(s.axis, desc); return v }, values),
				unary(name+":indices", in(s.shape...).from(fewValues), func(t *tensor.Tensor) *tensor.Tensor { _, i := t.Sort(s.axis, desc); return i }, positions).giving(tensor.Int32),
				unary(fmt.Sprintf("argsort(%d,desc=%v)", s.axis, desc), in(s.shape...).from(fewValues), func(t *tensor.Tensor) *tensor.Tensor { return t.ArgSort(s.axis, desc) }, positions).giving(tensor.Int32),
			)
			k := min(3, n)
			top := func(a *ref.Array, pick int) *ref.Array {
				v, i := ref.Sort(a, s.axis, desc)
				return []*ref.Array{v, i}[pick].Narrow(s.axis, 0, k)
			}
			name = fmt.Sprintf("topk(%d,%d,largest=%v)", k, s.axis, desc)
			rows = append(rows,
				unary(name+":values", in(s.shape...).spacedOut(), func(t *tensor.Tensor) *tensor.Tensor { v, _ := t.TopK(k, s.axis, desc); return v },
					func(a *ref.Array) *ref.Array { return top(a, 0) }).differentiable(),
				unary(name+":indices", in(s.shape...).from(fewValues), func(t *tensor.Tensor) *tensor.Tensor { _, i := t.TopK(k, s.axis, desc); return i },
					func(a *ref.Array) *ref.Array { return top(a, 1) }).giving(tensor.Int32))
		}
		for _, keep := range []bool{false, true} {
			kept := func(r *ref.Array) *ref.Array {
				if keep {
					return r.Unsqueeze(s.axis)
				}
				return r
			}
			name := fmt.Sprintf("median(%d,keep=%v)", s.axis, keep)
			rows = append(rows,
				unary(name+":values", in(s.shape...).spacedOut(), func(t *tensor.Tensor) *tensor.Tensor { v, _ := t.Median(s.axis, keep); return v },
					func(a *ref.Array) *ref.Array { v, _ := ref.Median(a, s.axis); return kept(v) }).differentiable(),
				unary(name+":nan", in(s.shape...).from(fewValues), func(t *tensor.Tensor) *tensor.Tensor { v, _ := t.Median(s.axis, keep); return v },
					func(a *ref.Array) *ref.Array { v, _ := ref.Median(a, s.axis); return kept(v) }),
				unary(name+":indices", in(s.shape...).from(fewValues), func(t *tensor.Tensor) *tensor.Tensor { _, i := t.Median(s.axis, keep); return i },
					func(a *ref.Array) *ref.Array { _, i := ref.Median(a, s.axis); return kept(i) }).giving(tensor.Int32))
		}
	}
	// Longer than maxRankSort: through the bitonic network.
	for _, s := range []struct {
		shape []int
		axis  int
	}{{[]int{3, 300}, 1}, {[]int{260, 2}, 0}} {
		for _, desc := range []bool{false, true} {
			name := fmt.Sprintf("network:sort(%d,desc=%v)", s.axis, desc)
			rows = append(rows,
				unary(name+":values", in(s.shape...).spacedOut(), func(t *tensor.Tensor) *tensor.Tensor { v, _ := t.Sort(s.axis, desc); return v },
					func(a *ref.Array) *ref.Array { v, _ := ref.Sort(a, s.axis, desc); return v }).differentiable(),
				unary(name+":indices", in(s.shape...).from(fewValues), func(t *tensor.Tensor) *tensor.Tensor { _, i := t.Sort(s.axis, desc); return i },
					func(a *ref.Array) *ref.Array { _, i := ref.Sort(a, s.axis, desc); return i }).giving(tensor.Int32))
		}
		rows = append(rows, unary(fmt.Sprintf("network:median(%d):indices", s.axis), in(s.shape...).from(fewValues),
			func(t *tensor.Tensor) *tensor.Tensor { _, i := t.Median(s.axis, false); return i },
			func(a *ref.Array) *ref.Array { _, i := ref.Median(a, s.axis); return i }).giving(tensor.Int32))
	}
	rows = append(rows,
		unary("sort(1):int32", in(3, 11).index(1<<30), func(t *tensor.Tensor) *tensor.Tensor { v, _ := t.Sort(1, false); return v },
			func(a *ref.Array) *ref.Array { v, _ := ref.Sort(a, 1, false); return v }).giving(tensor.Int32),
		unary("sort(1):float16", gradIn{shape: []int{3, 9}, g: fewValues, dt: tensor.Float16, l: contiguous},
			func(t *tensor.Tensor) *tensor.Tensor { v, _ := t.Sort(1, false); return v },
			func(a *ref.Array) *ref.Array { v, _ := ref.Sort(a, 1, false); return v }).giving(tensor.Float16),
		unary("median(0):bfloat16:indices", gradIn{shape: []int{6, 4}, g: fewValues, dt: tensor.BFloat16, l: contiguous},
			func(t *tensor.Tensor) *tensor.Tensor { _, i := t.Median(0, false); return i },
			func(a *ref.Array) *ref.Array { _, i := ref.Median(a, 0); return i }).giving(tensor.Int32),
		unary("sort(0,desc):int32", in(19, 2).index(5), func(t *tensor.Tensor) *tensor.Tensor { _, i := t.Sort(0, true); return i },
			func(a *ref.Array) *ref.Array { _, i := ref.Sort(a, 0, true); return i }).giving(tensor.Int32),
	)
	return rows
}

func sortCases() []testCase { return rowCases(sortRows()) }
