package conformance

import (
	"math"
	"math/rand/v2"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// Uint8 and Int8 beyond the round trips and arithmetic of the wide cases:
// casts of floats past every range, views whose elements share 32-bit words
// with their neighbours (offsets and strides that are not multiples of four,
// broadcasts, concatenations), indexing and reductions of byte tensors. GPU
// backends pack four bytes a word, so these catch a lost or torn neighbour.

// byteTypes are the 8-bit integer types.
var byteTypes = []tensor.DType{tensor.Uint8, tensor.Int8}

// floatSpecials are float values whose casts to the 8-bit types exercise
// truncation, saturation at the int32 range before the low byte is kept,
// infinities and NaN.
var floatSpecials = []float64{0, math.Copysign(0, -1), 0.99, -0.99, 255.5, 256, -128.5, -129, 300.5, -300.5,
	65535.75, 2147483520, 2147483648, -2147483648, -2147483904, 3e9, -3e9, 1e30, -1e30,
	math.Inf(1), math.Inf(-1), math.NaN()}

// intSpecials are Int32 values whose casts to the 8-bit types keep their
// low byte.
var intSpecials = []float64{0, -1, 127, 128, 255, 256, -128, -129, 65535, 65536 + 44, math.MaxInt32, math.MinInt32, -2147483392}

// wrapTo maps reference results of integer arithmetic to dt as a store
// into dt does (the low byte).
func wrapTo(dt tensor.DType, a *ref.Array) *ref.Array {
	return ref.Map(a, func(v float64) float64 { return castRef(v, tensor.Int64, dt) })
}

func byteCases() []testCase {
	var cs []testCase
	for _, dt := range byteTypes {
		cs = append(cs,
			testCase{name: caseName("byte_casts", dt.String()), run: func(e *env) { byteCasts(e, dt) }},
			testCase{name: caseName("byte_views", dt.String()), run: func(e *env) { byteViews(e, dt) }},
			testCase{name: caseName("byte_indexing", dt.String()), run: func(e *env) { byteIndexing(e, dt) }},
			testCase{name: caseName("byte_reductions", dt.String()), run: func(e *env) { byteReductions(e, dt) }},
		)
	}
	return cs
}

// byteCasts checks casts to dt from every float type (NaN, infinities,
// values past the int32 range), from Int32 and from the other byte type,
// stored and fused into a following op.
func byteCasts(e *env, dt tensor.DType) {
	if !e.dev.Supports(dt) {
		return // round_trip checks the refusal
	}
	wide := func(r *rand.Rand) float64 { return r.NormFloat64() * []float64{100, 1e4, 3e9}[r.IntN(3)] }
	for _, from := range []tensor.DType{tensor.Float32, tensor.Float16, tensor.BFloat16} {
		vals := append(e.fill(from, wide, 37), ofType(from, floatSpecials)...)
		x := e.constant(from, vals, len(vals))
		want := ref.Map(x.R, func(v float64) float64 { return castRef(v, from, dt) })
		e.expect("Cast("+dt.String()+") of "+from.String(), dt, want, exact, func() *tensor.Tensor { return x.T.Cast(dt) })
		// Fused: the byte value must be the stored one before it is
		// widened again.
		e.expect("Cast("+dt.String()+").Cast(float32) of "+from.String(), tensor.Float32, want, exact,
			func() *tensor.Tensor { return x.T.Cast(dt).Cast(tensor.Float32) })
		twice := ref.Map(x.R, func(v float64) float64 { return castRef(2*v, tensor.Float64, dt) })
		if from == tensor.Float32 {
			e.expect("MulScalar(2).Cast("+dt.String()+")", dt, twice, exact, func() *tensor.Tensor { return x.T.MulScalar(2).Cast(dt) })
		}
	}
	vals := append(e.fill(tensor.Int32, func(r *rand.Rand) float64 { return float64(int32(r.Uint32())) }, 37), intSpecials...)
	i := e.constant(tensor.Int32, vals, len(vals))
	want := ref.Map(i.R, func(v float64) float64 { return castRef(v, tensor.Int32, dt) })
	e.expect("Cast("+dt.String()+") of int32", dt, want, exact, func() *tensor.Tensor { return i.T.Cast(dt) })
	e.expect("Cast("+dt.String()+").Cast(int32) of int32", tensor.Int32, want, exact,
		func() *tensor.Tensor { return i.T.Cast(dt).Cast(tensor.Int32) })
	other := tensor.Int8
	if dt == tensor.Int8 {
		other = tensor.Uint8
	}
	if e.dev.Supports(other) {
		b := e.input(other, domain(other), strided, 3, 13)
		e.expect("Cast("+dt.String()+") of "+other.String(), dt, ref.Map(b.R, func(v float64) float64 { return castRef(v, other, dt) }),
			exact, func() *tensor.Tensor { return b.T.Cast(dt) })
	}
}

// byteViews checks elementwise ops on byte views that start mid-word, step
// over words, broadcast, and are concatenated at offsets that split words.
func byteViews(e *env, dt tensor.DType) {
	if !e.dev.Supports(dt) {
		return
	}
	g := domain(dt)
	x := e.input(dt, g, contiguous, 6, 11)
	y := e.input(dt, g, transposed, 6, 11)
	row := e.input(dt, g, contiguous, 1, 11)
	e.expect("Narrow at offsets 1 and 3, Add", dt, wrapTo(dt, ref.Add(x.R.Narrow(1, 1, 5), y.R.Narrow(1, 3, 5))), exact,
		func() *tensor.Tensor { return x.T.Narrow(1, 1, 5).Add(y.T.Narrow(1, 3, 5)) })
	e.expect("Slice(step 3 from 2).Neg", dt, wrapTo(dt, ref.Neg(x.R.Slice(1, 2, 11, 3))), exact,
		func() *tensor.Tensor { return x.T.Slice(1, 2, 11, 3).Neg() })
	e.expect("Expand(row).Sub", dt, wrapTo(dt, ref.Sub(row.R.Expand(6, 11), x.R)), exact,
		func() *tensor.Tensor { return row.T.Expand(6, 11).Sub(x.T) })
	e.expect("Expand(row).Contiguous", dt, row.R.Expand(6, 11), exact, func() *tensor.Tensor { return row.T.Expand(6, 11).Contiguous() })
	e.expect("Transpose.Mul", dt, wrapTo(dt, ref.Mul(x.R.Transpose(0, 1), y.R.Transpose(0, 1))), exact,
		func() *tensor.Tensor { return x.T.Transpose(0, 1).Mul(y.T.Transpose(0, 1)) })
	parts := func(a pair) []*tensor.Tensor {
		return []*tensor.Tensor{a.T.Narrow(1, 0, 3), a.T.Narrow(1, 5, 2), a.T.Narrow(1, 8, 3)}
	}
	refParts := func(a pair) []*ref.Array {
		return []*ref.Array{a.R.Narrow(1, 0, 3), a.R.Narrow(1, 5, 2), a.R.Narrow(1, 8, 3)}
	}
	e.expect("Cat of widths 3, 2, 3", dt, ref.Cat(1, refParts(x)...), exact, func() *tensor.Tensor { return tensor.Cat(1, parts(x)...) })
	e.expect("Cat along rows of a transposed view", dt, ref.Cat(0, y.R, x.R.Narrow(0, 1, 3)), exact,
		func() *tensor.Tensor { return tensor.Cat(0, y.T, x.T.Narrow(0, 1, 3)) })
	mask := e.input(tensor.Bool, ints(0, 1), strided, 6, 11)
	e.expect("Where", dt, ref.Where(mask.R, x.R, y.R), exact, func() *tensor.Tensor { return tensor.Where(mask.T, x.T, y.T) })
	e.expect("Maximum(broadcast)", dt, ref.Maximum(x.R, row.R), exact, func() *tensor.Tensor { return x.T.Maximum(row.T) })
	e.expect("Flip", dt, ref.Flip(y.R, 1), exact, func() *tensor.Tensor { return y.T.Flip(1) })
	e.expect("Repeat", dt, ref.Repeat(row.R, 2, 3), exact, func() *tensor.Tensor { return row.T.Repeat(2, 3) })
}

// byteIndexing checks Gather, IndexSelect and Scatter of byte tensors with
// Int32 indices, and IndexAdd's refusal (its sums are Float32).
func byteIndexing(e *env, dt tensor.DType) {
	if !e.dev.Supports(dt) {
		return
	}
	g := domain(dt)
	src := e.input(dt, g, transposed, 5, 9)
	idx := e.input(tensor.Int32, ints(0, 8), contiguous, 5, 4)
	e.expect("Gather", dt, ref.Gather(src.R, 1, idx.R), exact, func() *tensor.Tensor { return src.T.Gather(1, idx.T) })
	sel := e.constant(tensor.Int32, []float64{3, 0, 3, 4, 1}, 5)
	e.expect("IndexSelect(0)", dt, ref.IndexSelect(src.R, 0, sel.R), exact, func() *tensor.Tensor { return src.T.IndexSelect(0, sel.T) })
	e.expect("IndexSelect(1)", dt, ref.IndexSelect(src.R, 1, sel.R), exact, func() *tensor.Tensor { return src.T.IndexSelect(1, sel.T) })
	// Distinct positions per row: Scatter refuses duplicates.
	perm := make([]float64, 0, 5*3)
	for range 5 {
		p := e.rng.Perm(9)
		for _, v := range p[:3] {
			perm = append(perm, float64(v))
		}
	}
	at := e.constant(tensor.Int32, perm, 5, 3)
	upd := e.input(dt, g, strided, 5, 3)
	want := ref.Scatter(src.R, 1, at.R, upd.R)
	got, err := src.T.Scatter(1, at.T, upd.T)
	e.noErr(err, "Scatter")
	e.compare("Scatter", got, dt, want, exact)
	expectUsage(e, "IndexAdd of "+dt.String(), func() { src.T.IndexAdd(0, sel.T, src.T) }, "IndexAdd", dt.String())
}

// byteReductions checks sums (counts), extremes and their positions, and
// means of byte tensors in strided and broadcast layouts.
func byteReductions(e *env, dt tensor.DType) {
	if !e.dev.Supports(dt) {
		return
	}
	g := domain(dt)
	x := e.input(dt, g, strided, 7, 29)
	b := e.input(dt, g, expanded, 6, 13)
	sumT := tensor.Int64
	if !reducesIn(e, tensor.Int64) {
		sumT = countType(e)
	}
	for _, a := range []pair{x, b} {
		for _, ax := range []int{0, 1} {
			e.expect("Sum", sumT, ref.Sum(a.R, false, ax), exact, func() *tensor.Tensor { return a.T.Sum(ax) })
			e.expect("Max", dt, ref.Max(a.R, false, ax), exact, func() *tensor.Tensor { return a.T.Max(ax) })
			e.expect("Min", dt, ref.Min(a.R, false, ax), exact, func() *tensor.Tensor { return a.T.Min(ax) })
			e.expect("ArgMin", tensor.Int32, ref.ArgMin(a.R, ax), exact, func() *tensor.Tensor { return a.T.ArgMin(ax) })
		}
		e.expect("Sum()", sumT, ref.Sum(a.R, false), exact, func() *tensor.Tensor { return a.T.Sum() })
		e.expect("Max()", dt, ref.Max(a.R, false), exact, func() *tensor.Tensor { return a.T.Max() })
		e.expect("Mean(1)", tensor.Float32, ref.Mean(a.R, false, 1), f32, func() *tensor.Tensor { return a.T.Mean(1) })
	}
}
