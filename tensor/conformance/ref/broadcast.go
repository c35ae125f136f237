package ref

import "fmt"

// BroadcastShapes returns the NumPy broadcast of the shapes, or panics naming
// op and the shapes when they do not broadcast.
func BroadcastShapes(op string, shapes ...[]int) []int {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		lead := rank - len(s)
		for i, n := range s {
			switch o := out[lead+i]; {
			case o == n || n == 1:
			case o == 1:
				out[lead+i] = n
			default:
				panic(fmt.Sprintf("ref.%s: shapes %v do not broadcast", op, shapes))
			}
		}
	}
	return out
}

// MapN applies f elementwise over the broadcast of the arrays and returns a
// new contiguous array. f receives one value per array and must not keep the
// slice.
func MapN(op string, f func(v []float64) float64, arrays ...*Array) *Array {
	shapes := make([][]int, len(arrays))
	for i, a := range arrays {
		shapes[i] = a.shape
	}
	shape := BroadcastShapes(op, shapes...)
	views := make([]*Array, len(arrays))
	for i, a := range arrays {
		views[i] = a.Expand(shape...)
	}
	n := numElements(shape)
	out := make([]float64, 0, n)
	vals := make([]float64, len(arrays))
	if runs, ok := sameRuns(views); ok {
		for i := range n {
			for k, r := range runs {
				vals[k] = r[i]
			}
			out = append(out, f(vals))
		}
		return New(out, shape...)
	}
	forEachIndex(shape, func(idx []int) {
		for i, v := range views {
			off := v.offset
			for d, x := range idx {
				off += x * v.strides[d]
			}
			vals[i] = v.data[off]
		}
		out = append(out, f(vals))
	})
	return New(out, shape...)
}

// sameRuns returns the views' elements as row-major runs when every view
// stores them that way (no broadcasting, no permutation).
func sameRuns(views []*Array) ([][]float64, bool) {
	runs := make([][]float64, len(views))
	for i, v := range views {
		r, ok := v.run()
		if !ok {
			return nil, false
		}
		runs[i] = r
	}
	return runs, true
}

// Map applies f to every element of a.
func Map(a *Array, f func(x float64) float64) *Array {
	return MapN("Map", func(v []float64) float64 { return f(v[0]) }, a)
}

// Map2 applies f elementwise over the broadcast of a and b.
func Map2(op string, a, b *Array, f func(x, y float64) float64) *Array {
	return MapN(op, func(v []float64) float64 { return f(v[0], v[1]) }, a, b)
}
