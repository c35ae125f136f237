package vec

import (
	"github.com/shaderflow/shaderflow/tensor/device"

	"flag"
	"math"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

var (
	sweepPoints = flag.Int("vec.sweep", 1<<19, "points per sign in each error sweep (the documented errors used 1<<24)")
	sweepOps    = flag.String("vec.sweepops", "", "regexp: sweep only the ops whose name matches")
)

// sweepRange is a range of |x| swept for one op, by evenly spaced float32
// bit patterns, both signs unless positiveOnly.
type sweepRange struct {
	lo, hi       float32
	positiveOnly bool
}

// bound is an op's documented error: at most maxULP ulps where the result
// is a normal float32, and at most maxAbs where it is subnormal or where the
// op is evaluated near cancellation (absBelow: |ref| below it; near: x within
// nearWidth of nearX, around a zero of the result).
type bound struct {
	maxULP   float64
	maxAbs   float64
	absBelow float64

	nearX, nearWidth float64
}

// absolute reports whether b measures op(x) with reference ref in absolute
// terms.
func (b bound) absolute(x float32, ref float64) bool {
	return math.Abs(ref) < b.absBelow || math.Abs(float64(x)-b.nearX) < b.nearWidth
}

// sweeps lists, per transcendental, the swept range and its documented bound.
var sweeps = map[device.Op]struct {
	r sweepRange
	b bound
}{
	device.OpExp:      {sweepRange{0, 105, false}, bound{maxULP: 1.5, maxAbs: 0x1p-149, absBelow: 0x1p-126}},
	device.OpLog:      {sweepRange{0, math.MaxFloat32, true}, bound{maxULP: 1}},
	device.OpTanh:     {sweepRange{0, 12, false}, bound{maxULP: 3}},
	device.OpSigmoid:  {sweepRange{0, 110, false}, bound{maxULP: 3, maxAbs: 0x1p-148, absBelow: 0x1p-126}},
	device.OpErf:      {sweepRange{0, 12, false}, bound{maxULP: 2}},
	device.OpGeluErf:  {sweepRange{0, 20, false}, bound{maxULP: 3.5, maxAbs: 1e-42, absBelow: 0x1p-118}},
	device.OpGeluTanh: {sweepRange{0, 35, false}, bound{maxULP: 3, maxAbs: 1e-42, absBelow: 0x1p-118}},
	device.OpSilu:     {sweepRange{0, 110, false}, bound{maxULP: 3, maxAbs: 1e-42, absBelow: 0x1p-118}},
	// The GELUs' derivatives cross zero near x = -0.752, where their two
	// terms (each about 0.3) cancel: measured in absolute terms for x in
	// [-1, -0.5].
	device.OpGeluErfGrad:  {sweepRange{0, 20, false}, bound{maxULP: 4.5, maxAbs: 5e-8, absBelow: 0x1p-126, nearX: -0.75, nearWidth: 0.25}},
	device.OpGeluTanhGrad: {sweepRange{0, 35, false}, bound{maxULP: 8, maxAbs: 5e-8, absBelow: 0x1p-126, nearX: -0.75, nearWidth: 0.25}},
	device.OpSin:          {sweepRange{0, trigMax, false}, bound{maxULP: 2.5}},
	device.OpCos:          {sweepRange{0, trigMax, false}, bound{maxULP: 2.5}},
}

// sweepInputs returns n evenly spaced bit patterns of [lo, hi] and their
// negatives.
func sweepInputs(r sweepRange, n int) []float32 {
	b0, b1 := math.Float32bits(r.lo), math.Float32bits(r.hi)
	xs := make([]float32, 0, 2*n)
	for i := 0; i < n; i++ {
		b := b0 + uint32(uint64(b1-b0)*uint64(i)/uint64(n-1))
		x := math.Float32frombits(b)
		xs = append(xs, x)
		if !r.positiveOnly {
			xs = append(xs, -x)
		}
	}
	return xs
}

// measure returns the largest ulp error over results with |ref| >= absBelow
// (and the input giving it), and the largest absolute error below it.
func measure(op device.Op, xs, got []float32, refs []float64, absBelow float64) (maxULP float64, worst float32, maxAbs float64) {
	return measureBound(xs, got, refs, bound{absBelow: absBelow})
}

// measureBound is measure with b's absolute-error regions.
func measureBound(xs, got []float32, refs []float64, b bound) (maxULP float64, worst float32, maxAbs float64) {
	for i, x := range xs {
		u, a := errULP(got[i], refs[i])
		if b.absolute(x, refs[i]) {
			maxAbs = math.Max(maxAbs, a)
			continue
		}
		if u > maxULP {
			maxULP, worst = u, x
		}
	}
	return maxULP, worst, maxAbs
}

// TestErrorSweep checks every transcendental's documented error bound at
// every available level over a sweep of its input range.
func TestErrorSweep(t *testing.T) {
	for _, op := range unaryOps() {
		sw, ok := sweeps[op]
		if !ok || (*sweepOps != "" && !regexp.MustCompile(*sweepOps).MatchString(op.String())) {
			continue
		}
		xs := sweepInputs(sw.r, *sweepPoints)
		refs := make([]float64, len(xs))
		for i, x := range xs {
			refs[i] = ref64(op, x)
		}
		got := make([]float32, len(xs))
		forEachLevel(t, func(t *testing.T, l Level) {
			unary(op, got, xs)
			u, worst, a := measureBound(xs, got, refs, sw.b)
			t.Logf("%-8s %-6v max %.3f ulp (at x=%g), max abs %.3g where |ref| < %g or |x - %g| < %g", op, l, u, worst, a, sw.b.absBelow, sw.b.nearX, sw.b.nearWidth)
			assert.LessOrEqual(t, u, sw.b.maxULP, "%v at %v: ulp error at x=%g", op, l, worst)
			assert.LessOrEqual(t, a, sw.b.maxAbs, "%v at %v: absolute error", op, l)
		})
	}
}

// TestTrigNearMultiples checks sin and cos at the float32 values nearest to
// every multiple of pi/2 up to trigMax (and their neighbours), where the
// result is smallest and the range reduction is hardest.
func TestTrigNearMultiples(t *testing.T) {
	var xs []float32
	for k := 1; float64(k)*math.Pi/2 <= trigMax; k++ {
		c := float32(float64(k) * math.Pi / 2)
		b := math.Float32bits(c)
		for d := uint32(0); d < 3; d++ {
			xs = append(xs, math.Float32frombits(b-d), math.Float32frombits(b+d), -math.Float32frombits(b+d))
		}
	}
	got := make([]float32, len(xs))
	for _, op := range []device.Op{device.OpSin, device.OpCos} {
		refs := make([]float64, len(xs))
		for i, x := range xs {
			refs[i] = ref64(op, x)
		}
		forEachLevel(t, func(t *testing.T, l Level) {
			unary(op, got, xs)
			u, worst, _ := measure(op, xs, got, refs, 0)
			t.Logf("%v %v: max %.3f ulp near multiples of pi/2 (at x=%g)", op, l, u, worst)
			assert.LessOrEqual(t, u, sweeps[op].b.maxULP, "%v at %v near x=%g", op, l, worst)
		})
	}
}
