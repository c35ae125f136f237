package conformance

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// The dtypes beyond the base set (Int64, Float64, Uint8, Int8) and exact
// integer reductions. On a device that lacks a type, its cases check the
// refusal instead: creating such a tensor is a usage error and a cast to it
// an error when read, each naming the type and the backend.

// wideTypes are the types a device may lack.
var wideTypes = []tensor.DType{tensor.Int64, tensor.Float64, tensor.Uint8, tensor.Int8}

// castTypes are every dtype, the sources and targets of the cast cases.
var castTypes = []tensor.DType{tensor.Float32, tensor.Float16, tensor.BFloat16, tensor.Int32,
	tensor.Bool, tensor.Int64, tensor.Float64, tensor.Uint8, tensor.Int8}

// domain draws values of dt: Int64 beyond the int32 range (exact in
// float64), Float64 over many binades, the 8-bit integers over their range.
func domain(dt tensor.DType) gen {
	switch dt {
	case tensor.Int64:
		return func(r *rand.Rand) float64 { return float64(r.Int64N(1<<42) - 1<<41) }
	case tensor.Uint8:
		return ints(0, 255)
	case tensor.Int8:
		return ints(-128, 127)
	case tensor.Int32:
		return ints(-1<<30, 1<<30)
	case tensor.Bool:
		return ints(0, 1)
	case tensor.Float64:
		return func(r *rand.Rand) float64 { return r.NormFloat64() * math.Pow(10, -5+10*r.Float64()) }
	}
	return func(r *rand.Rand) float64 { return float64(float32(r.NormFloat64() * 300)) }
}

// castRef is the value Cast(to) gives for v of type from: floats truncate
// toward zero and saturate at the int32 (Int32, Uint8, Int8) or int64 range,
// NaN becoming 0; integers wrap (the 8-bit types and Int32 keep their low
// bits, as in PyTorch); anything to Bool tests for non-zero.
func castRef(v float64, from, to tensor.DType) float64 {
	switch {
	case to == tensor.Bool:
		return b2f(v != 0)
	case from == tensor.Float64 && to == tensor.BFloat16:
		return ref.RoundBFloat16Once(v) // rounded once, not through float32
	case to.IsFloat():
		return round(to, v)
	}
	var i int64
	switch {
	case v != v:
	case from.IsFloat() && to == tensor.Int64:
		i = int64(max(min(math.Trunc(v), 0x1p63-1024), -0x1p63))
	case from.IsFloat():
		i = int64(max(min(math.Trunc(v), math.MaxInt32), math.MinInt32))
	default:
		i = int64(v)
	}
	switch to {
	case tensor.Int32:
		return float64(int32(i))
	case tensor.Uint8:
		return float64(uint8(i))
	case tensor.Int8:
		return float64(int8(i))
	}
	return float64(i)
}

// specials are values every cast case includes: zero, signs, fractions,
// values past the int32 and 8-bit ranges and NaN (for float sources).
var specials = []float64{0, 1, -1, 2.5, -2.5, 127, 128, 255, 256, -129, 3e9, -3e9, 1 << 40, math.NaN()}

// ofType keeps the specials that are values of dt.
func ofType(dt tensor.DType, vs []float64) []float64 {
	var out []float64
	for _, v := range vs {
		if castRef(v, tensor.Float64, dt) == v || dt.IsFloat() && (v != v || round(dt, v) == v) {
			out = append(out, v)
		}
	}
	return out
}

// refused checks that dt is refused on a device that lacks it.
func refused(e *env, dt tensor.DType) {
	backend := e.dev.Info().Backend
	expectUsage(e, "creating a "+dt.String()+" tensor", func() { e.upload(dt, []float64{1, 2}, 2) }, dt.String(), backend)
	x := e.randn(3)
	_, err := x.T.Cast(dt).Float32s()
	if err == nil || !strings.Contains(err.Error(), dt.String()) || !strings.Contains(err.Error(), backend) {
		e.errorf("Cast(%s) on %s: error %v, want one naming the type and the backend", dt, backend, err)
	}
}

// reducesIn reports whether the device's reductions accumulate in dt.
func reducesIn(e *env, dt tensor.DType) bool { return e.dev.Info().ReduceAccumulators().Has(dt) }

// refusedRead checks that reading x fails with an error naming want and the
// backend.
func refusedRead(e *env, what string, x *tensor.Tensor, want string) {
	backend := e.dev.Info().Backend
	_, err := x.Float32s()
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), backend) {
		e.errorf("%s on %s: error %v, want one naming %s and the backend", what, backend, err, want)
	}
}

func wideCases() []testCase {
	var cs []testCase
	for _, dt := range wideTypes {
		cs = append(cs, testCase{name: caseName("round_trip", dt.String()), run: func(e *env) {
			if !e.dev.Supports(dt) {
				refused(e, dt)
				return
			}
			for _, l := range allLayouts {
				x := e.input(dt, domain(dt), l, 5, 7)
				e.compare("upload and read back ("+l.name+")", x.T, dt, x.R, exact)
				e.expect("Contiguous ("+l.name+")", dt, x.R, exact, func() *tensor.Tensor { return x.T.Contiguous() })
			}
			x := e.input(dt, domain(dt), contiguous, 4, 6)
			e.expect("Transpose", dt, x.R.Transpose(0, 1).Contiguous(), exact, func() *tensor.Tensor { return x.T.Transpose(0, 1).Contiguous() })
			e.expect("Narrow", dt, x.R.Narrow(1, 2, 3).Contiguous(), exact, func() *tensor.Tensor { return x.T.Narrow(1, 2, 3).Contiguous() })
			e.expect("Cat", dt, ref.Cat(0, x.R, x.R), exact, func() *tensor.Tensor { return tensor.Cat(0, x.T, x.T) })
		}})
	}
	for _, from := range castTypes {
		cs = append(cs, testCase{name: caseName("casts_from", from.String()), run: func(e *env) {
			if !e.dev.Supports(from) {
				return // round_trip checks the refusal
			}
			vals := append(e.fill(from, domain(from), 29), ofType(from, specials)...)
			x := e.constant(from, vals, len(vals))
			for _, to := range castTypes {
				if !e.dev.Supports(to) {
					continue
				}
				want := ref.Map(x.R, func(v float64) float64 { return castRef(v, from, to) })
				e.expect("Cast("+to.String()+")", to, want, exact, func() *tensor.Tensor { return x.T.Cast(to) })
			}
		}})
	}
	cs = append(cs, wideArithCases()...)
	cs = append(cs, wideReduceCases()...)
	cs = append(cs, wideIndexCases()...)
	return cs
}

func wideArithCases() []testCase {
	wrap := func(dt tensor.DType, f func(a, b *ref.Array) *ref.Array) func(a, b *ref.Array) *ref.Array {
		return func(a, b *ref.Array) *ref.Array {
			return ref.Map(f(a, b), func(v float64) float64 { return castRef(v, tensor.Int64, dt) })
		}
	}
	var cs []testCase
	for _, dt := range wideTypes {
		g := domain(dt)
		small := g
		tl := exact
		switch dt {
		case tensor.Int64:
			small = func(r *rand.Rand) float64 { return float64(r.Int64N(1<<26) - 1<<25) } // products exact in float64
		case tensor.Float64:
			tl = tol{rel: 1e-15}
		}
		ops := []binaryOp{
			{"add", (*tensor.Tensor).Add, wrap(dt, ref.Add), g, g, tl, asInput},
			{"sub", (*tensor.Tensor).Sub, wrap(dt, ref.Sub), g, g, tl, asInput},
			{"mul", (*tensor.Tensor).Mul, wrap(dt, ref.Mul), small, small, tl, asInput},
			{"maximum", (*tensor.Tensor).Maximum, ref.Maximum, g, g, exact, asInput},
			{"minimum", (*tensor.Tensor).Minimum, ref.Minimum, g, g, exact, asInput},
		}
		if dt == tensor.Float64 {
			ops[0].ref, ops[1].ref, ops[2].ref = ref.Add, ref.Sub, ref.Mul
			ops = append(ops, binaryOp{"div", (*tensor.Tensor).Div, ref.Div, g, g, tl, asInput})
		}
		if dt == tensor.Uint8 {
			ops = append(ops, compareOps(ints(0, 6))...)
		} else {
			ops = append(ops, compareOps(ints(-3, 3))...)
		}
		for _, op := range ops {
			op := op
			cs = append(cs, testCase{name: caseName(op.name, dt.String()), run: func(e *env) {
				if !e.dev.Supports(dt) {
					return
				}
				out := op.outDType
				if out == asInput {
					out = dt
				}
				for _, ls := range [][2]layout{{contiguous, contiguous}, {transposed, expanded}} {
					a, b := e.input(dt, op.da, ls[0], 5, 7), e.input(dt, op.db, ls[1], 5, 7)
					e.expect(op.name+" ("+ls[0].name+", "+ls[1].name+")", out, op.ref(a.R, b.R), op.tl, func() *tensor.Tensor { return op.dev(a.T, b.T) })
				}
			}})
		}
	}
	cs = append(cs, testCase{name: caseName("float64_math"), run: func(e *env) {
		if !e.dev.Supports(tensor.Float64) {
			return
		}
		x := e.input(tensor.Float64, uniform(0.1, 20), transposed, 6, 9)
		t64 := tol{rel: 1e-14}
		e.expect("Exp", tensor.Float64, ref.Exp(x.R), t64, func() *tensor.Tensor { return x.T.Exp() })
		e.expect("Log", tensor.Float64, ref.Log(x.R), t64, func() *tensor.Tensor { return x.T.Log() })
		e.expect("Sqrt", tensor.Float64, ref.Sqrt(x.R), t64, func() *tensor.Tensor { return x.T.Sqrt() })
		e.expect("Tanh", tensor.Float64, ref.Tanh(x.R), t64, func() *tensor.Tensor { return x.T.Tanh() })
		tiny := e.constant(tensor.Float64, []float64{1e-12}, 1)
		one := e.constant(tensor.Float64, []float64{1}, 1)
		// 1 + 1e-12 - 1 is 1e-12 within float64's rounding; float32 gives 0.
		e.expect("(1+1e-12)-1", tensor.Float64, ref.Full(1.000088900582341e-12, 1), exact, func() *tensor.Tensor { return one.T.Add(tiny.T).Sub(one.T) })
		a, b := e.input(tensor.Float64, normal, contiguous, 7, 13), e.input(tensor.Float64, normal, transposed, 13, 5)
		if !reducesIn(e, tensor.Float64) {
			refusedRead(e, "MatMul of float64", a.T.MatMul(b.T), "float64")
			return
		}
		e.expect("MatMul", tensor.Float64, ref.MatMul(a.R, b.R), tol{rel: 1e-13, abs: 1e-13}, func() *tensor.Tensor { return a.T.MatMul(b.T) })
	}})
	cs = append(cs, testCase{name: caseName("uint8_wraps_in_fusion"), run: func(e *env) {
		if !e.dev.Supports(tensor.Uint8) {
			return
		}
		// 200+100 stores 44 in uint8, also when the sum is read by a
		// fused cast rather than stored.
		x := e.constant(tensor.Uint8, []float64{200, 5, 255}, 3)
		y := e.constant(tensor.Uint8, []float64{100, 3, 1}, 3)
		want := ref.New([]float64{44, 8, 0}, 3)
		e.expect("Add", tensor.Uint8, want, exact, func() *tensor.Tensor { return x.T.Add(y.T) })
		e.expect("Add then Cast(Float32)", tensor.Float32, want, exact, func() *tensor.Tensor { return x.T.Add(y.T).Cast(tensor.Float32) })
		e.expect("AddScalar(100)", tensor.Uint8, ref.New([]float64{44, 105, 99}, 3), exact, func() *tensor.Tensor { return x.T.AddScalar(100) })
	}})
	return cs
}

// countType is the type of a Bool, Uint8 or Int8 sum on a backend without
// Int64 accumulators: Int64 where it stores Int64, else Int32.
func countType(e *env) tensor.DType {
	if e.dev.Supports(tensor.Int64) {
		return tensor.Int64
	}
	return tensor.Int32
}

func wideReduceCases() []testCase {
	return []testCase{
		{name: caseName("int32_exact_reductions"), run: func(e *env) {
			// Values near 2^30: sums pass 2^24 and 2^31, which a Float32
			// accumulator rounds; extremes differ in the lowest bits.
			x := e.input(tensor.Int32, ints(1<<30-40, 1<<30), strided, 33, 7)
			y := e.input(tensor.Int32, ints(-1<<30, 1<<30), transposed, 5, 9)
			for _, ax := range []int{0, 1} {
				e.expect("Max", tensor.Int32, ref.Max(x.R, false, ax), exact, func() *tensor.Tensor { return x.T.Max(ax) })
				e.expect("Min", tensor.Int32, ref.Min(y.R, false, ax), exact, func() *tensor.Tensor { return y.T.Min(ax) })
				e.expect("MaxKeepDim", tensor.Int32, ref.Max(y.R, true, ax), exact, func() *tensor.Tensor { return y.T.MaxKeepDim(ax) })
				e.expect("ArgMax", tensor.Int32, ref.ArgMax(x.R, ax), exact, func() *tensor.Tensor { return x.T.ArgMax(ax) })
				e.expect("ArgMin", tensor.Int32, ref.ArgMin(y.R, ax), exact, func() *tensor.Tensor { return y.T.ArgMin(ax) })
			}
			e.expect("Max()", tensor.Int32, ref.Max(x.R, false), exact, func() *tensor.Tensor { return x.T.Max() })
			b := e.input(tensor.Bool, ints(0, 1), transposed, 6, 40)
			// Scans of values near 2^30 pass 2^31 after two elements: Int64
			// where the device stores it, else refused rather than wrapped.
			if e.dev.Supports(tensor.Int64) {
				e.expect("Cumsum(int32)", tensor.Int64, cumsumRef(0)(x.R), exact, func() *tensor.Tensor { return x.T.Cumsum(0) })
			} else {
				refusedRead(e, "Cumsum of int32", x.T.Cumsum(0), "int64")
				refusedRead(e, "Cumprod of int32", x.T.Cumprod(0), "int64")
				// A running count cannot pass 2^31 here: exact in Int32.
				e.expect("Cumsum(bool)", tensor.Int32, cumsumRef(1)(b.R), exact, func() *tensor.Tensor { return b.T.Cumsum(1) })
				e.expect("Cumprod(bool)", tensor.Int32, cumprodRef(0)(b.R), exact, func() *tensor.Tensor { return b.T.Cumprod(0) })
			}
			if !reducesIn(e, tensor.Int64) {
				refusedRead(e, "Sum of int32", x.T.Sum(), "int64")
				// Counts stay exact through Float32 (smallIntSum).
				e.expect("Sum(bool)", countType(e), ref.Sum(b.R, false, 1), exact, func() *tensor.Tensor { return b.T.Sum(1) })
				e.expect("Sum(bool)()", countType(e), ref.Sum(b.R, false), exact, func() *tensor.Tensor { return b.T.Sum() })
				return
			}
			e.expect("Sum", tensor.Int64, ref.Sum(x.R, false, 0), exact, func() *tensor.Tensor { return x.T.Sum(0) })
			e.expect("Sum()", tensor.Int64, ref.Sum(x.R, false), exact, func() *tensor.Tensor { return x.T.Sum() })
			e.expect("Sum(bool)", tensor.Int64, ref.Sum(b.R, false, 1), exact, func() *tensor.Tensor { return b.T.Sum(1) })
			p := e.input(tensor.Int32, ints(-3, 3), contiguous, 4, 30)
			e.expect("Prod", tensor.Int64, ref.Prod(p.R, false, 1), exact, func() *tensor.Tensor { return p.T.Prod(1) })
		}},
		{name: caseName("wide_reductions"), run: func(e *env) {
			for _, dt := range wideTypes {
				if !e.dev.Supports(dt) {
					continue
				}
				x := e.input(dt, domain(dt), transposed, 9, 40)
				sumT, t := tensor.Int64, exact
				if dt == tensor.Float64 {
					sumT, t = dt, tol{rel: 1e-13, abs: 1e-13}
				}
				if reducesIn(e, sumT) {
					if dt == tensor.Float64 {
						e.expect("Mean(float64)", dt, ref.Mean(x.R, false, 1), t, func() *tensor.Tensor { return x.T.Mean(1) })
					}
					for _, ax := range []int{0, 1} {
						e.expect("Sum("+dt.String()+")", sumT, ref.Sum(x.R, false, ax), t, func() *tensor.Tensor { return x.T.Sum(ax) })
					}
				} else if dt == tensor.Uint8 || dt == tensor.Int8 {
					e.expect("Sum("+dt.String()+")", countType(e), ref.Sum(x.R, false, 1), exact, func() *tensor.Tensor { return x.T.Sum(1) })
				} else {
					refusedRead(e, "Sum of "+dt.String(), x.T.Sum(), sumT.String())
				}
				switch {
				case dt == tensor.Uint8 || dt == tensor.Int8 || reducesIn(e, dt):
					for _, ax := range []int{0, 1} {
						e.expect("Max("+dt.String()+")", dt, ref.Max(x.R, false, ax), exact, func() *tensor.Tensor { return x.T.Max(ax) })
						e.expect("Min("+dt.String()+")", dt, ref.Min(x.R, false, ax), exact, func() *tensor.Tensor { return x.T.Min(ax) })
						e.expect("ArgMax("+dt.String()+")", tensor.Int32, ref.ArgMax(x.R, ax), exact, func() *tensor.Tensor { return x.T.ArgMax(ax) })
					}
				case dt == tensor.Int64:
					expectUsage(e, "Max of int64", func() { x.T.Max() }, "int64", e.dev.Info().Backend)
				default:
					refusedRead(e, "Max of "+dt.String(), x.T.Max(), dt.String())
				}
			}
		}},
		{name: caseName("integer_matmul_refused"), run: func(e *env) {
			a := e.input(tensor.Int32, ints(-3, 3), contiguous, 2, 2)
			expectUsage(e, "MatMul(int32)", func() { a.T.MatMul(a.T) }, "MatMul", "int32", "cast")
		}},
	}
}

func wideIndexCases() []testCase {
	return []testCase{
		{name: caseName("int64_indices"), run: func(e *env) {
			if !e.dev.Supports(tensor.Int64) {
				return
			}
			x := e.input(tensor.Float32, normal, contiguous, 4, 9)
			idx := e.input(tensor.Int64, ints(0, 8), contiguous, 4, 5)
			e.expect("Gather", tensor.Float32, ref.Gather(x.R, 1, idx.R), exact, func() *tensor.Tensor { return x.T.Gather(1, idx.T) })
			sel := e.constant(tensor.Int64, []float64{3, 0, 3}, 3)
			e.expect("IndexSelect", tensor.Float32, ref.IndexSelect(x.R, 0, sel.R), exact, func() *tensor.Tensor { return x.T.IndexSelect(0, sel.T) })
			// 2^32+1 must not wrap to 1.
			far := e.constant(tensor.Int64, []float64{1<<32 + 1}, 1, 1)
			_, err := x.T.Gather(1, far.T).Float32s()
			if err == nil {
				e.errorf("Gather with index 2^32+1: no error")
			}
			for _, dt := range []tensor.DType{tensor.Uint8, tensor.Int64, tensor.Float64} {
				if !e.dev.Supports(dt) {
					continue
				}
				v := e.input(dt, domain(dt), transposed, 4, 9)
				e.expect("Gather("+dt.String()+")", dt, ref.Gather(v.R, 1, idx.R), exact, func() *tensor.Tensor { return v.T.Gather(1, idx.T) })
			}
		}},
	}
}
