package vec

import (
	"github.com/shaderflow/shaderflow/tensor/device"

	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// geluTableULP is the error bound of the exact GELU inside the geluPhi
// table's range (measured 1.55 ulp at the Go and AVX-512 levels over 2^24 points a sign; AVX2 runs
// the erfc form there, whose sweep bound applies).
const geluTableULP = 2.0

// TestGeluPhiTableRange sweeps |x| < geluPhiMax, where the Go and AVX-512
// kernels use the piecewise table, plus the float32 neighbours of every
// interval boundary (x = k/4 - 4) and of the range's ends, where the
// interval index is rounded.
func TestGeluPhiTableRange(t *testing.T) {
	xs := append(sweepInputs(sweepRange{0, geluPhiMax, false}, *sweepPoints), geluPhiEdges()...)
	refs := make([]float64, len(xs))
	for i, x := range xs {
		refs[i] = ref64(device.OpGeluErf, x)
	}
	got := make([]float32, len(xs))
	bound := sweeps[device.OpGeluErf].b
	forEachLevel(t, func(t *testing.T, l Level) {
		GeluErf(got, xs)
		u, worst, a := measure(device.OpGeluErf, xs, got, refs, bound.absBelow)
		t.Logf("GeluErf %v, |x| < %g: max %.3f ulp (at x=%g)", l, geluPhiMax, u, worst)
		want := geluTableULP
		if l == LevelAVX2 {
			want = bound.maxULP
		}
		assert.LessOrEqual(t, u, want, "at x=%g", worst)
		assert.LessOrEqual(t, a, bound.maxAbs)
	})
}

// TestGeluPerLane checks that a lane's result does not depend on its
// neighbours: the AVX-512 kernel runs a cheaper path for vectors whose
// lanes are all in the table's range, and must give the same bits as the
// full path it takes when one lane is not.
func TestGeluPerLane(t *testing.T) {
	r := newRand(t)
	const n = 4096 + 13
	x := make([]float32, n) // all inside the table's range: the fast path
	for i := range x {
		x[i] = (2*r.Float32() - 1) * 3.99
	}
	want := make([]float32, n)
	forEachLevel(t, func(t *testing.T, l Level) {
		GeluErf(want, x)
		for _, far := range []float32{10, -7, float32(math.Inf(1)), float32(math.NaN())} {
			y := append([]float32(nil), x...)
			moved := make([]bool, n)
			for i := 5; i < n; i += 37 {
				y[i], moved[i] = far, true
			}
			got := make([]float32, n)
			GeluErf(got, y)
			for i := range y {
				if moved[i] {
					continue
				}
				if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
					require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "x=%g at %d, with %g nearby", x[i], i, far)
				}
			}
		}
	})
}

// TestGeluTanhGoTail checks the pure-Go tanh GELU in its negative tail,
// where its double-float argument breaks if the compiler fuses a product
// into the sum that must see it rounded (as Go may on arm64).
func TestGeluTanhGoTail(t *testing.T) {
	for x := float32(-3); x > -30; x -= 1.0 / 64 {
		got, ref := geluTanh32(x), geluTanh64(float64(x))
		// The bound of sweep_test.go: 3 ulp, or 1e-42 absolute below 2^-118.
		if u, abs := errULP(got, ref); u > 3 && !(math.Abs(ref) < 0x1p-118 && abs <= 1e-42) {
			t.Fatalf("geluTanh32(%v) = %v, %.1f ulp from %v", x, got, u, ref)
		}
	}
}

// TestGeluErfGradTableEdges checks the exact GELU's derivative at the
// float32 neighbours of every geluPhi interval boundary and of the table's
// ends, where the Go and AVX-512 kernels switch intervals or forms.
func TestGeluErfGradTableEdges(t *testing.T) {
	xs := geluPhiEdges()
	refs := make([]float64, len(xs))
	for i, x := range xs {
		refs[i] = ref64(device.OpGeluErfGrad, x)
	}
	got := make([]float32, len(xs))
	b := sweeps[device.OpGeluErfGrad].b
	forEachLevel(t, func(t *testing.T, l Level) {
		GeluErfGrad(got, xs)
		u, worst, a := measureBound(xs, got, refs, b)
		assert.LessOrEqual(t, u, b.maxULP, "at x=%g", worst)
		assert.LessOrEqual(t, a, b.maxAbs)
	})
}

// geluPhiEdges returns the float32 neighbours of every geluPhi interval
// boundary (x = k/4 - 4) and of the table's ends, where the interval index
// is rounded and the kernels switch intervals or forms.
func geluPhiEdges() []float32 {
	var xs []float32
	for k := 0; k <= 32; k++ {
		b := math.Float32bits(float32(k)/4 - 4)
		for d := uint32(0); d < 4; d++ {
			xs = append(xs, math.Float32frombits(b+d), math.Float32frombits(b-d))
		}
	}
	for _, e := range []float32{geluPhiMax, -geluPhiMax} {
		for d := uint32(0); d < 4; d++ {
			xs = append(xs, math.Float32frombits(math.Float32bits(e)-d), math.Float32frombits(math.Float32bits(e)+d))
		}
	}
	return xs
}
