package gputest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Layout is how a test view lays its logical elements out in its buffer.
type Layout int

// The layouts.
const (
	Contiguous Layout = iota // row-major at offset 0
	Offset                   // row-major at an odd element offset
	Reversed                 // dimensions stored in reverse order (a transpose)
	Broadcast                // every other dimension of size > 1 has stride 0
	Strided                  // row-major with gaps: every stride doubled, offset 1
)

// Layouts lists every layout.
var Layouts = []Layout{Contiguous, Offset, Reversed, Broadcast, Strided}

// String names the layout.
func (l Layout) String() string {
	return [...]string{"contiguous", "offset", "reversed", "broadcast", "strided"}[l]
}

// Tensor is a test view with its logical values (row-major), as the kernel
// sees them after conversion to the compute type.
type Tensor struct {
	View   device.View
	Values []float64
}

// Gen makes random values for a dtype.
type Gen func(r *rand.Rand) float64

// Normal draws from N(0, 1) (floats) or [-50, 50] (int32), 0/1 for bool,
// any byte for uint8 and int8.
func Normal(dt device.DType) Gen {
	return func(r *rand.Rand) float64 {
		switch dt {
		case device.Int32:
			return float64(r.IntN(101) - 50)
		case device.Bool:
			return float64(r.IntN(2))
		case device.Uint8:
			return float64(r.IntN(256))
		case device.Int8:
			return float64(r.IntN(256) - 128)
		}
		return r.NormFloat64()
	}
}

// WithSpecials returns g with NaN, ±Inf, ±0 and large values mixed in
// (floats only) at a few percent.
func WithSpecials(g Gen) Gen {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e30, -1e30, 88, -100}
	return func(r *rand.Rand) float64 {
		if r.IntN(20) == 0 {
			return specials[r.IntN(len(specials))]
		}
		return g(r)
	}
}

// Make uploads a view of shape with the given dtype and layout filled by g.
func Make(t testing.TB, d device.Device, r *rand.Rand, dt device.DType, shape []int, l Layout, g Gen) Tensor {
	t.Helper()
	n := len(shape)
	strides := make([]int, n)
	off := 0
	switch l {
	case Reversed:
		acc := 1
		for i := 0; i < n; i++ {
			strides[i] = acc
			acc *= shape[i]
		}
	default:
		acc := 1
		for i := n - 1; i >= 0; i-- {
			s := 1
			if l == Strided {
				s = 2
			}
			if l == Broadcast && i%2 == 0 && shape[i] > 1 {
				strides[i] = 0
				continue
			}
			strides[i] = acc * s
			acc *= shape[i] * s
		}
	}
	switch l {
	case Offset:
		off = 3
	case Strided:
		off = 1
	}
	v := device.View{DType: dt, Offset: off, Shape: slices.Clone(shape), Strides: strides}
	_, hi := v.Span()
	hi = max(hi, off+1)
	store := make([]float64, hi)
	for i := range store {
		store[i] = g(r)
	}
	store = Decode(dt, Encode(dt, store)) // round to the dtype
	v.Buf = Upload(t, d, dt, store)
	vals := make([]float64, v.NumElements())
	for p := range vals {
		vals[p] = store[v.Index(p)]
	}
	return Tensor{View: v, Values: vals}
}

// Output allocates a poisoned contiguous view of shape and dtype at element
// offset off (an odd offset puts sub-word dtypes mid-word).
func Output(t testing.TB, d device.Device, dt device.DType, off int, shape []int) device.View {
	t.Helper()
	n := device.NumElements(shape)
	b := Alloc(t, d, int64((off+n+1)*dt.Size()))
	return device.Contiguous(b, dt, off, slices.Clone(shape))
}

// Fetch reads a contiguous view's values.
func Fetch(t testing.TB, d device.Device, v device.View) []float64 {
	t.Helper()
	return Download(t, d, v.Buf, v.DType, v.Offset, v.NumElements())
}
