package conformance

import (
	"errors"
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// fixedIndex is an Int32 index of the given shape whose lines along dim are
// distinct positions below n (a rotation of 0..n-1 by the line's number),
// so that Scatter has no repeated target.
func fixedIndex(shape []int, dim, n int) ([]int32, []float64) {
	total := numElements(shape)
	vals := make([]int32, total)
	fs := make([]float64, total)
	for p := range vals {
		idx := multiIndex(p, shape)
		line := 0
		for d, x := range idx {
			if d != dim {
				line = line*7 + x
			}
		}
		v := (idx[dim]*3 + line) % n // 3 is prime to the sizes used
		vals[p], fs[p] = int32(v), float64(v)
	}
	return vals, fs
}

// scatterRows are Scatter, ScatterValue, IndexAdd, MaskedSelect and Einsum.
func scatterRows() []opRow {
	var rows []opRow
	for _, s := range []struct {
		in, index, src []int
		dim            int
	}{{[]int{5, 4}, []int{5, 3}, []int{6, 4}, 0}, {[]int{3, 5}, []int{2, 5}, []int{2, 5}, 1}, {[]int{2, 4, 5}, []int{2, 3, 5}, []int{2, 3, 5}, 1}} {
		iv, fv := fixedIndex(s.index, s.dim, s.in[s.dim])
		rows = append(rows, row(fmt.Sprintf("scatter(%d)", s.dim), []gradIn{in(s.in...), in(s.src...)},
			func(t []*tensor.Tensor) *tensor.Tensor {
				y, err := t[0].Scatter(s.dim, tensor.FromInt32s(t[0].Device(), iv, s.index...), t[1])
				if err != nil {
					panic(err)
				}
				return y
			}, func(a []*ref.Array) *ref.Array { return ref.Scatter(a[0], s.dim, ref.New(fv, s.index...), a[1]) }).differentiable())
	}
	rows = append(rows,
		row("scatter_value(1,2.5)", []gradIn{in(3, 6), in(3, 4).index(6)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].ScatterValue(1, t[1], 2.5) },
			func(a []*ref.Array) *ref.Array {
				return ref.Scatter(a[0], 1, a[1], ref.Full(2.5, 3, 4)) // repeats write the same value
			}).differentiable(),
		row("index_add(0)", []gradIn{in(4, 3), in(6).index(4), in(6, 3)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].IndexAdd(0, t[1], t[2]) },
			func(a []*ref.Array) *ref.Array { return ref.IndexAdd(a[0], 0, a[1], a[2]) }).
			within(magnitudeTol(1e-6, func(a []*ref.Array) *ref.Array { return ref.IndexAdd(a[0], 0, a[1], a[2]) })).differentiable(),
		row("index_add(-1)", []gradIn{in(2, 3, 5), in(7).index(5), in(2, 3, 7)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].IndexAdd(-1, t[1], t[2]) },
			func(a []*ref.Array) *ref.Array { return ref.IndexAdd(a[0], -1, a[1], a[2]) }).
			within(magnitudeTol(1e-6, func(a []*ref.Array) *ref.Array { return ref.IndexAdd(a[0], -1, a[1], a[2]) })).differentiable(),
	)
	sel := func(t []*tensor.Tensor) *tensor.Tensor {
		y, err := t[0].MaskedSelect(t[1])
		if err != nil {
			panic(err)
		}
		return y
	}
	selRef := func(a []*ref.Array) *ref.Array { return ref.MaskedSelect(a[0], a[1]) }
	rows = append(rows,
		row("masked_select", []gradIn{in(4, 5), in(4, 5).boolean()}, sel, selRef).differentiable(),
		row("masked_select:broadcast_mask", []gradIn{in(3, 4, 5), in(4, 1).boolean()}, sel, selRef).differentiable(),
		row("masked_select:broadcast_input", []gradIn{in(1, 5), in(3, 5).boolean()}, sel, selRef).differentiable(),
		row("masked_select:none", []gradIn{in(3, 4), in(4).boolean().from(ints(0, 0))}, sel, selRef),
		row("masked_select:int32", []gradIn{in(37).index(1 << 30), in(37).boolean()}, sel, selRef).giving(tensor.Int32),
	)
	for _, e := range []struct {
		sub    string
		shapes [][]int
	}{
		{"ij,jk->ik", [][]int{{3, 4}, {4, 5}}},
		{"ij,jk", [][]int{{3, 4}, {4, 5}}},
		{"bij,bjk->bik", [][]int{{2, 3, 4}, {2, 4, 5}}},
		{"i,i->", [][]int{{7}, {7}}},
		{"i,j->ij", [][]int{{3}, {4}}},
		{"ij->ji", [][]int{{3, 4}}},
		{"ij->", [][]int{{3, 4}}},
		{"ijk->j", [][]int{{2, 3, 4}}},
		{"bhqd,bhkd->bhqk", [][]int{{2, 3, 4, 5}, {2, 3, 6, 5}}},
		{"ijk,jl,kl->il", [][]int{{2, 3, 4}, {3, 5}, {4, 5}}},
		{"ij,kj->ikj", [][]int{{3, 1}, {2, 4}}},
		{"abc,cd->dba", [][]int{{2, 3, 4}, {4, 5}}},
		{"ij,jk,kl->", [][]int{{2, 3}, {3, 4}, {4, 2}}},
		{"...ij,...jk->...ik", [][]int{{2, 3, 4}, {2, 4, 5}}},
		{"...ij,jk", [][]int{{2, 1, 3, 4}, {4, 5}}},
		{"b...i,b...i->b...", [][]int{{2, 3, 4}, {2, 1, 4}}},
		{"...,...->...", [][]int{{3, 1}, {4}}},
		{"...ij->j", [][]int{{2, 3, 4}}},
		{"ii->i", [][]int{{4, 4}}},
		{"ii", [][]int{{4, 4}}},
		{"bii->bi", [][]int{{2, 3, 3}}},
		{"iji->j", [][]int{{3, 2, 3}}},
		{"ij,jj->i", [][]int{{2, 3}, {3, 3}}},
	} {
		ins := make([]gradIn, len(e.shapes))
		for i, s := range e.shapes {
			ins[i] = in(s...)
		}
		full := map[string]string{ // implicit outputs and ellipses made explicit for ref.Einsum
			"ij,jk": "ij,jk->ik", "...ij,...jk->...ik": "zij,zjk->zik", "...ij,jk": "yzij,jk->yzik",
			"b...i,b...i->b...": "bzi,bzi->bz", "...,...->...": "yz,z->yz", "...ij->j": "zij->j", "ii": "ii->",
		}[e.sub]
		if full == "" {
			full = e.sub
		}
		rows = append(rows, row(fmt.Sprintf("einsum(%s)", e.sub), ins,
			func(t []*tensor.Tensor) *tensor.Tensor { return tensor.Einsum(e.sub, t...) },
			func(a []*ref.Array) *ref.Array { return ref.Einsum(full, a...) }).
			within(magnitudeTol(1e-5, func(a []*ref.Array) *ref.Array { return ref.Einsum(full, a...) })).differentiable())
	}
	return rows
}

func scatterCases() []testCase {
	return append(rowCases(scatterRows()),
		testCase{name: "scatter:duplicate_index_refused", run: func(e *env) {
			x := e.randn(3, 4)
			idx := tensor.FromInt32s(e.dev, []int32{3, 2, 1, 0, 0, 1, 2, 1}, 2, 4) // 1 twice in row 1
			if _, err := x.T.Scatter(1, idx, x.T); !errors.Is(err, tensor.ErrDuplicateIndex) {
				e.errorf("Scatter with a repeated target: err %v, want ErrDuplicateIndex", err)
			}
		}},
		testCase{name: "einsum:refusals", run: func(e *env) {
			x := e.randn(3, 3)
			for _, sub := range []string{"ii->i3", "...ijk->k", "i...j.->ij", "...i...->i", "ij,jk->ik", "ij->k", "ij->ii", "i1->i"} {
				if err := tensor.Catch(func() { tensor.Einsum(sub, x.T) }); err == nil {
					e.errorf("Einsum(%q) of one 3x3 operand: no usage error", sub)
				}
			}
		}},
	)
}
