package conformance

import (
	"math"

	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// env is what a case runs with: its test, the device, its random stream and
// the fusion mode.
type env struct {
	t      *testing.T
	dev    *tensor.Device
	rng    *rand.Rand
	st     *state // shared by the run's cases
	seed   uint64 // the suite's seed
	fusion bool
}

// seedNote says how to repeat the failing case.
func (e *env) seedNote() string {
	return fmt.Sprintf("[seed %d, fusion %v: SHADERFLOW_SEED=%d go test -run '%s']", e.seed, e.fusion, e.seed, e.t.Name())
}

// errorf reports a failure with the seed.
func (e *env) errorf(format string, args ...any) {
	e.t.Helper()
	e.t.Errorf("%s %s", fmt.Sprintf(format, args...), e.seedNote())
}

// fatalf reports a failure with the seed and stops the case.
func (e *env) fatalf(format string, args ...any) {
	e.t.Helper()
	e.t.Fatalf("%s %s", fmt.Sprintf(format, args...), e.seedNote())
}

// noErr stops the case when err is not nil.
func (e *env) noErr(err error, what string) {
	e.t.Helper()
	if err != nil {
		if e.st != nil {
			e.st.noteLost(e.t, err)
		}
		e.fatalf("%s: %v", what, err)
	}
}

// pair is a device tensor and the reference array that holds the same values.
type pair struct {
	T *tensor.Tensor
	R *ref.Array
}

// gen draws one input value; values are made representable in the tensor's
// dtype by the caller.
type gen func(r *rand.Rand) float64

// normal draws from N(0, 1).
func normal(r *rand.Rand) float64 { return r.NormFloat64() }

// uniform draws from [lo, hi).
func uniform(lo, hi float64) gen {
	return func(r *rand.Rand) float64 { return lo + (hi-lo)*r.Float64() }
}

// positive draws from [0.1, 4), the domain of log, sqrt and pow.
var positive = uniform(0.1, 4)

// awayFromZero draws ±[0.5, 2), safe divisors.
func awayFromZero(r *rand.Rand) float64 {
	v := 0.5 + 1.5*r.Float64()
	if r.IntN(2) == 0 {
		return -v
	}
	return v
}

// farFromKinks draws normal values at least 0.05 from zero, so that finite
// differences never straddle the kink of relu, abs or max.
func farFromKinks(r *rand.Rand) float64 {
	for {
		if v := r.NormFloat64(); v > 0.05 || v < -0.05 {
			return v
		}
	}
}

// gridStep is the spacing of spaced and onGrid values: a power of two, so
// that they and their sums are exact in float32.
const gridStep = 1.0 / 32

// spaced returns n distinct values in random order: the odd multiples of
// gridStep/2 around zero. Any two differ by at least gridStep, and each is
// gridStep/2 from zero and from every onGrid value, so a finite difference
// (steps of about 1e-6) never crosses a tie of max, a max-pool window or a
// kink of relu, even after an onGrid value is added in float32.
func (e *env) spaced(n int) []float64 {
	v := make([]float64, n)
	for i, k := range e.rng.Perm(n) {
		v[i] = (float64(k-n/2) + 0.5) * gridStep
	}
	return v
}

// onGrid draws multiples of gridStep in [-1, 1]: partners of spaced values
// (a bias added to them, the other operand of maximum).
func onGrid(r *rand.Rand) float64 { return float64(r.IntN(65)-32) * gridStep }

// ints draws integers in [lo, hi].
func ints(lo, hi int) gen {
	return func(r *rand.Rand) float64 { return float64(lo + r.IntN(hi-lo+1)) }
}

// nonzero draws integers in [lo, hi] other than zero.
func nonzero(lo, hi int) gen {
	return func(r *rand.Rand) float64 {
		for {
			if v := lo + r.IntN(hi-lo+1); v != 0 {
				return float64(v)
			}
		}
	}
}

// round returns v as the dtype stores it.
func round(dt tensor.DType, v float64) float64 {
	switch dt {
	case tensor.Float16:
		return ref.RoundFloat16(v)
	case tensor.BFloat16:
		return ref.RoundBFloat16(v)
	case tensor.Bool:
		if v != 0 {
			return 1
		}
		return 0
	case tensor.Float64, tensor.Int64, tensor.Uint8, tensor.Int8:
		return v // generators draw values of these types
	case tensor.Int32:
		// Exact, not through float32: 2^31-1 would round to 2^31, which
		// Go's int32 conversion maps to -2^31 on amd64 and 2^31-1 on arm64.
		return max(min(math.Trunc(v), math.MaxInt32), math.MinInt32)
	}
	return ref.RoundFloat32(v)
}

// fill returns n values drawn from g and rounded to dt.
func (e *env) fill(dt tensor.DType, g gen, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = round(dt, g(e.rng))
	}
	return v
}

// upload creates a contiguous device tensor of dt holding vals.
func (e *env) upload(dt tensor.DType, vals []float64, shape ...int) *tensor.Tensor {
	switch dt {
	case tensor.Int32:
		d := make([]int32, len(vals))
		for i, v := range vals {
			d[i] = int32(v)
		}
		return tensor.FromInt32s(e.dev, d, shape...)
	case tensor.Bool:
		d := make([]bool, len(vals))
		for i, v := range vals {
			d[i] = v != 0
		}
		return tensor.FromBools(e.dev, d, shape...)
	case tensor.Int64:
		d := make([]int64, len(vals))
		for i, v := range vals {
			d[i] = int64(v)
		}
		return tensor.FromInt64s(e.dev, d, shape...)
	case tensor.Uint8:
		d := make([]uint8, len(vals))
		for i, v := range vals {
			d[i] = uint8(v)
		}
		return tensor.FromUint8s(e.dev, d, shape...)
	case tensor.Int8:
		d := make([]int8, len(vals))
		for i, v := range vals {
			d[i] = int8(v)
		}
		return tensor.FromInt8s(e.dev, d, shape...)
	case tensor.Float64:
		return tensor.FromFloat64s(e.dev, slices.Clone(vals), shape...)
	}
	d := make([]float32, len(vals))
	for i, v := range vals {
		d[i] = float32(v)
	}
	x := tensor.FromFloat32s(e.dev, d, shape...)
	if dt != tensor.Float32 {
		x = x.Cast(dt)
	}
	return x
}

// input returns a realized tensor of dtype dt and the given logical shape
// with values from g, laid out as l describes (a view of a larger or
// differently ordered buffer), together with its reference.
func (e *env) input(dt tensor.DType, g gen, l layout, shape ...int) pair {
	e.t.Helper()
	return e.inputOf(dt, e.fill(dt, g, numElements(l.baseShape(shape))), l, shape...)
}

// inputOf is input with the values of l's base tensor given; vals must be
// representable in dt.
func (e *env) inputOf(dt tensor.DType, vals []float64, l layout, shape ...int) pair {
	e.t.Helper()
	base := l.baseShape(shape)
	p := pair{T: e.upload(dt, vals, base...), R: ref.New(vals, base...)}
	p = l.apply(p, shape)
	e.noErr(p.T.Realize(), "realizing an input")
	return p
}

// f32 returns a contiguous float32 input from g.
func (e *env) f32(g gen, shape ...int) pair { return e.input(tensor.Float32, g, contiguous, shape...) }

// randn returns a contiguous float32 input from N(0, 1).
func (e *env) randn(shape ...int) pair { return e.f32(normal, shape...) }

// constant returns a pair holding the given values.
func (e *env) constant(dt tensor.DType, vals []float64, shape ...int) pair {
	e.t.Helper()
	for i, v := range vals {
		vals[i] = round(dt, v)
	}
	p := pair{T: e.upload(dt, vals, shape...), R: ref.New(vals, shape...)}
	e.noErr(p.T.Realize(), "realizing an input")
	return p
}
