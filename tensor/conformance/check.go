package conformance

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// poison fills the memory pool with garbage of the size n elements of dt
// occupy, then frees it, so that a kernel that leaves an output element
// unwritten leaves garbage there: NaN for float results, 0x7f bytes (an
// invalid bool, a huge int32) otherwise.
func (e *env) poison(dt tensor.DType, n int) {
	e.t.Helper()
	words := (n*dt.Size() + 3) / 4
	if words == 0 {
		return
	}
	v := float32(math.NaN())
	if !dt.IsFloat() {
		v = math.Float32frombits(0x7f7f7f7f)
	}
	data := make([]float32, words)
	for i := range data {
		data[i] = v
	}
	e.dev.Scope(func() {
		for range 2 {
			e.noErr(tensor.FromFloat32s(e.dev, data, words).Realize(), "poisoning the pool")
		}
	})
}

// read returns a tensor's values as float64.
func (e *env) read(x *tensor.Tensor) []float64 {
	e.t.Helper()
	var out []float64
	switch x.DType() {
	case tensor.Int32:
		v, err := x.Int32s()
		e.noErr(err, "reading int32s")
		for _, i := range v {
			out = append(out, float64(i))
		}
	case tensor.Bool:
		v, err := x.Bools()
		e.noErr(err, "reading bools")
		for _, b := range v {
			out = append(out, b2f(b))
		}
	case tensor.Int64, tensor.Uint8, tensor.Int8:
		v, err := x.Int64s()
		e.noErr(err, "reading int64s")
		for _, i := range v {
			out = append(out, float64(i))
		}
	case tensor.Float64:
		v, err := x.Float64s()
		e.noErr(err, "reading float64s")
		out = append(out, v...)
	default:
		v, err := x.Float32s()
		e.noErr(err, "reading float32s")
		for _, f := range v {
			out = append(out, float64(f))
		}
	}
	if len(out) != x.NumElements() {
		e.fatalf("read %d values from a tensor of shape %v", len(out), x.Shape())
	}
	return out
}

// expect poisons the pool for want's size, builds the result, and checks its
// dtype, shape and values. It returns the result.
func (e *env) expect(what string, dt tensor.DType, want *ref.Array, t tol, build func() *tensor.Tensor) *tensor.Tensor {
	e.t.Helper()
	e.poison(dt, want.Size())
	got := build()
	e.compare(what, got, dt, want, t)
	return got
}

// compare checks a result against its reference.
func (e *env) compare(what string, got *tensor.Tensor, dt tensor.DType, want *ref.Array, t tol) bool {
	e.t.Helper()
	if got.DType() != dt {
		e.errorf("%s: dtype %s, want %s", what, got.DType(), dt)
		return false
	}
	if !slices.Equal(got.Shape(), want.Shape()) {
		e.errorf("%s: shape %v, want %v", what, got.Shape(), want.Shape())
		return false
	}
	return e.compareValues(what, e.read(got), want, t)
}

// compareValues checks values in row-major order against want.
func (e *env) compareValues(what string, got []float64, want *ref.Array, t tol) bool {
	e.t.Helper()
	w := want.Values()
	var scale []float64
	if t.scale != nil {
		scale = t.scale.Expand(want.Shape()...).Values()
	}
	var bad []string
	nbad, worst := 0, 0.0
	for i := range w {
		s := 0.0
		if scale != nil {
			s = scale[i]
		}
		bound := t.abs + t.rel*(math.Abs(w[i])+s)
		ok, excess := within(got[i], w[i], bound)
		if ok {
			continue
		}
		nbad++
		worst = max(worst, excess)
		if len(bad) < 6 {
			bad = append(bad, fmt.Sprintf("  at %v: got %.9g, want %.9g (bound %.3g)", multiIndex(i, want.Shape()), got[i], w[i], bound))
		}
	}
	if nbad == 0 {
		return true
	}
	e.errorf("%s: %d of %d elements differ (worst error %.3g× its bound); shape %v\n%s",
		what, nbad, len(w), worst, want.Shape(), strings.Join(bad, "\n"))
	return false
}

// within reports whether got matches want within bound: NaN must match NaN
// and infinities must match exactly. excess is the error over the bound.
func within(got, want, bound float64) (ok bool, excess float64) {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got), math.Inf(1)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return got == want, math.Inf(1)
	}
	d := math.Abs(got - want)
	if d <= bound {
		return true, 0
	}
	if bound == 0 {
		return false, math.Inf(1)
	}
	return false, d / bound
}

// multiIndex converts a row-major position into a multi-index of shape.
func multiIndex(p int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = p % shape[d]
			p /= shape[d]
		}
	}
	return idx
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
