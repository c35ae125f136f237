package conformance

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// shapeOpRows are the composed shape ops: Flip, Roll, Repeat, Tile, Split,
// Chunk, Unbind, Pad, Tril, Triu, MaskedFill and Outer.
func shapeOpRows() []opRow {
	var rows []opRow
	for _, f := range []struct {
		shape []int
		axes  []int
	}{{[]int{7}, []int{0}}, {[]int{3, 4, 5}, []int{0}}, {[]int{3, 4, 5}, []int{-1}}, {[]int{3, 4, 5}, []int{0, 2}}, {[]int{2, 3}, []int{0, 1}}} {
		rows = append(rows, unary(fmt.Sprintf("flip%v", f.axes), in(f.shape...),
			func(t *tensor.Tensor) *tensor.Tensor { return t.Flip(f.axes...) },
			func(a *ref.Array) *ref.Array { return ref.Flip(a, f.axes...) }).differentiable())
	}
	rows = append(rows,
		// A flipped operand read by a fused elementwise op and a reduction.
		unary("flip_add_sum", in(4, 6), func(t *tensor.Tensor) *tensor.Tensor { return t.Flip(1).Add(t).Mul(t.Flip(0)).Sum(0) }, flipAddSum).
			within(magnitudeTol(1e-5, func(a []*ref.Array) *ref.Array { return flipAddSum(a[0]) })).differentiable(),
		unary("flip_matmul", in(4, 3), func(t *tensor.Tensor) *tensor.Tensor { return t.Flip(0).MatMul(t.Flip(1).T()) }, flipMatMul).
			within(magnitudeTol(1e-5, func(a []*ref.Array) *ref.Array { return flipMatMul(a[0]) })).differentiable(),
	)
	for _, r := range []struct {
		shape, shifts, axes []int
	}{{[]int{3, 4, 5}, []int{2, -1}, []int{0, 2}}, {[]int{3, 4}, []int{-7}, []int{1}}, {[]int{3, 4}, []int{5}, nil}, {[]int{6}, []int{0}, []int{0}}} {
		rows = append(rows, unary(fmt.Sprintf("roll%v%v", r.shifts, r.axes), in(r.shape...),
			func(t *tensor.Tensor) *tensor.Tensor { return t.Roll(r.shifts, r.axes...) },
			func(a *ref.Array) *ref.Array {
				if r.axes == nil {
					return ref.Roll(a.Reshape(-1), r.shifts, []int{0}).Reshape(r.shape...)
				}
				return ref.Roll(a, r.shifts, r.axes)
			}).differentiable())
	}
	for _, r := range []struct{ shape, reps []int }{{[]int{3, 4}, []int{2, 3}}, {[]int{2, 3, 1}, []int{2, 1, 1, 2}}, {[]int{3, 4}, []int{1, 0}}} {
		rows = append(rows, unary(fmt.Sprintf("repeat%v", r.reps), in(r.shape...),
			func(t *tensor.Tensor) *tensor.Tensor { return t.Repeat(r.reps...) },
			func(a *ref.Array) *ref.Array { return ref.Repeat(a, r.reps...) }).differentiable())
	}
	rows = append(rows, unary("tile[2]", in(3, 4), func(t *tensor.Tensor) *tensor.Tensor { return t.Tile(2) },
		func(a *ref.Array) *ref.Array { return ref.Repeat(a, 1, 2) }).differentiable())
	// The pieces of Split, Chunk and Unbind, each scaled by its position and
	// joined again, so that a piece out of place shows.
	joined := func(axis int, ps []*tensor.Tensor) *tensor.Tensor {
		for i := range ps {
			ps[i] = ps[i].MulScalar(float64(i + 1))
		}
		return tensor.Cat(axis, ps...)
	}
	refJoined := func(a *ref.Array, axis int, sizes []int) *ref.Array {
		var ps []*ref.Array
		at := 0
		for i, s := range sizes {
			ps = append(ps, ref.Map(a.Narrow(axis, at, s), func(v float64) float64 { return v * float64(i+1) }))
			at += s
		}
		return ref.Cat(axis, ps...)
	}
	rows = append(rows,
		unary("split(2,1)", in(3, 5), func(t *tensor.Tensor) *tensor.Tensor { return joined(1, t.Split(2, 1)) },
			func(a *ref.Array) *ref.Array { return refJoined(a, 1, []int{2, 2, 1}) }).within(relTol(1e-6)).differentiable(),
		unary("split_sizes[1,0,3](-1)", in(2, 4), func(t *tensor.Tensor) *tensor.Tensor { return joined(-1, t.SplitSizes([]int{1, 0, 3}, -1)) },
			func(a *ref.Array) *ref.Array { return refJoined(a, 1, []int{1, 0, 3}) }).within(relTol(1e-6)).differentiable(),
		unary("chunk(3,0)", in(7, 2), func(t *tensor.Tensor) *tensor.Tensor { return joined(0, t.Chunk(3, 0)) },
			func(a *ref.Array) *ref.Array { return refJoined(a, 0, []int{3, 3, 1}) }).within(relTol(1e-6)).differentiable(),
		unary("chunk(4,0)", in(6, 2), func(t *tensor.Tensor) *tensor.Tensor { return joined(0, t.Chunk(4, 0)) }, // torch gives 3 pieces of 2
			func(a *ref.Array) *ref.Array { return refJoined(a, 0, []int{2, 2, 2}) }).within(relTol(1e-6)).differentiable(),
		unary("unbind(1)", in(3, 4, 2), func(t *tensor.Tensor) *tensor.Tensor {
			ps := t.Unbind(1)
			for i := range ps {
				ps[i] = ps[i].Unsqueeze(1)
			}
			return joined(1, ps)
		}, func(a *ref.Array) *ref.Array { return refJoined(a, 1, []int{1, 1, 1, 1}) }).within(relTol(1e-6)).differentiable(),
		unary("select(1,-1)", in(3, 4, 2), func(t *tensor.Tensor) *tensor.Tensor { return t.Select(1, -1) },
			func(a *ref.Array) *ref.Array { return a.Narrow(1, 3, 1).Squeeze(1) }).differentiable(),
	)
	for _, p := range []struct {
		shape []int
		pads  []int
		mode  tensor.PadMode
		value float64
	}{
		{[]int{3, 4}, []int{1, 2}, tensor.PadConstant, 0},
		{[]int{2, 3, 4}, []int{1, 2, 0, 3}, tensor.PadConstant, 1.5},
		{[]int{3, 5}, []int{-1, 2, 2, -1}, tensor.PadConstant, -2},
		{[]int{2, 4, 5}, []int{2, 1, 1, 3}, tensor.PadReflect, 0},
		{[]int{2, 3, 4, 5}, []int{4, 4, 2, 0, 1, 1}, tensor.PadReflect, 0},
		{[]int{2, 3, 4}, []int{3, 1, 2, 0}, tensor.PadReplicate, 0},
		{[]int{1, 5}, []int{0, 2, 2, 1}, tensor.PadReplicate, 0},
		// Four padded dimensions: assembled three at a time.
		{[]int{2, 3, 2, 3}, []int{1, 0, 0, 2, 1, 1, 2, 1}, tensor.PadConstant, 0.5},
		{[]int{2, 3, 3, 4}, []int{1, 2, 2, 1, 1, 1, 1, 0}, tensor.PadReflect, 0},
		{[]int{2, 2, 3, 2}, []int{1, 1, 0, 2, 1, 0, 2, 1}, tensor.PadReplicate, 0},
	} {
		rows = append(rows, unary(fmt.Sprintf("pad%v:%v:%g", p.pads, p.mode, p.value), in(p.shape...),
			func(t *tensor.Tensor) *tensor.Tensor { return t.Pad(p.pads, p.mode, p.value) },
			func(a *ref.Array) *ref.Array { return ref.Pad(a, p.pads, ref.PadMode(p.mode.String()), p.value) }).differentiable())
	}
	for _, sh := range [][]int{{4, 6}, {2, 5, 3}} {
		for _, k := range []int{0, -1, 2} {
			rows = append(rows,
				unary(fmt.Sprintf("tril(%d)", k), in(sh...), func(t *tensor.Tensor) *tensor.Tensor { return t.Tril(k) },
					func(a *ref.Array) *ref.Array { return ref.Triangle(a, k, true) }).differentiable(),
				unary(fmt.Sprintf("triu(%d)", k), in(sh...), func(t *tensor.Tensor) *tensor.Tensor { return t.Triu(k) },
					func(a *ref.Array) *ref.Array { return ref.Triangle(a, k, false) }).differentiable())
		}
	}
	for _, dg := range []struct {
		shape              []int
		offset, dim1, dim2 int
	}{{[]int{4, 4}, 0, 0, 1}, {[]int{3, 5}, 1, 0, 1}, {[]int{5, 3}, -2, 0, 1}, {[]int{2, 3, 4}, 0, 2, 0}, {[]int{2, 3, 4}, -1, -1, 1}, {[]int{3, 4}, 5, 0, 1}} {
		rows = append(rows, unary(fmt.Sprintf("diagonal(%d,%d,%d)", dg.offset, dg.dim1, dg.dim2), in(dg.shape...),
			func(t *tensor.Tensor) *tensor.Tensor { return t.Diagonal(dg.offset, dg.dim1, dg.dim2) },
			func(a *ref.Array) *ref.Array { return ref.Diagonal(a, dg.offset, dg.dim1, dg.dim2) }).differentiable())
	}
	rows = append(rows,
		row("masked_fill(2.5)", []gradIn{in(3, 4), in(4).boolean()},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].MaskedFill(t[1], 2.5) },
			func(a []*ref.Array) *ref.Array { return ref.Where(a[1], ref.Full(2.5, 3, 4), a[0]) }).differentiable(),
		row("masked_fill(-inf)", []gradIn{in(2, 3, 4), in(2, 3, 4).boolean()},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].MaskedFill(t[1], math.Inf(-1)) },
			func(a []*ref.Array) *ref.Array { return ref.Where(a[1], ref.Full(math.Inf(-1), 2, 3, 4), a[0]) }),
		row("outer", []gradIn{in(5), in(7)},
			func(t []*tensor.Tensor) *tensor.Tensor { return t[0].Outer(t[1]) },
			func(a []*ref.Array) *ref.Array { return ref.Mul(a[0].Reshape(5, 1), a[1].Reshape(1, 7)) }).
			within(relTol(1e-6)).differentiable(),
	)
	return rows
}

func shapeOpCases() []testCase {
	return append(rowCases(shapeOpRows()), shapeOpInt32Cases()...)
}

// shapeOpInt32Cases check that the shape ops keep Int32 elements exact.
func shapeOpInt32Cases() []testCase {
	return []testCase{{name: caseName("int32", "flip_roll_pad_tril", "5x6"), run: func(e *env) {
		x := e.input(tensor.Int32, ints(-1<<30, 1<<30), transposed, 5, 6)
		want := ref.Triangle(ref.Pad(ref.Roll(ref.Flip(x.R, 1), []int{2}, []int{0}), []int{1, 1}, "replicate", 0), 1, true)
		e.expect("Int32 shape ops", tensor.Int32, want, exact, func() *tensor.Tensor {
			return x.T.Flip(1).Roll([]int{2}, 0).Pad([]int{1, 1}, tensor.PadReplicate, 0).Tril(1)
		})
	}}}
}

// flipAddSum and flipMatMul are the references of the rows that read flipped
// operands in a fused elementwise op, a reduction and a matrix product.
func flipAddSum(a *ref.Array) *ref.Array {
	return ref.Sum(ref.Mul(ref.Add(ref.Flip(a, 1), a), ref.Flip(a, 0)), false, 0)
}

func flipMatMul(a *ref.Array) *ref.Array { return ref.MatMul(ref.Flip(a, 0), ref.Flip(a, 1).T()) }
