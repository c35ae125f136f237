package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
)

// testLengths cover empty, sub-vector, exact-vector and odd tails at both
// vector widths (8 and 16 lanes), and a large odd size.
var testLengths = []int{0, 1, 7, 15, 16, 17, 33, 1000, 100003}

// specials are inserted into random inputs.
var specials = []float32{0, float32(math.Copysign(0, -1)), 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)),
	float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 0x1p-126, -0x1p-130,
	88.72, 88.73, -87.4, -103.9, -104, 200, -200, 1e30, -1e30, 3.14159265, 1e4, -65536, 65537}

// randInput returns n values: a mix of uniform [-scale, scale], log-uniform
// magnitudes of both signs and specials.
func randInput(r *rand.Rand, n int, scale float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		switch k := r.IntN(16); {
		case k == 0:
			x[i] = specials[r.IntN(len(specials))]
		case k < 6:
			x[i] = float32(math.Ldexp(r.Float64(), r.IntN(60)-40))
			if r.IntN(2) == 0 {
				x[i] = -x[i]
			}
		default:
			x[i] = (2*r.Float32() - 1) * scale
		}
	}
	return x
}

// poison returns a slice of n NaNs with a distinctive payload, so that an
// unwritten element cannot pass.
func poison(n int) []float32 {
	p := make([]float32, n)
	for i := range p {
		p[i] = math.Float32frombits(0x7fa5a5a5)
	}
	return p
}

// unaryBound returns the error allowed for op in the kernel tests: the
// sweep's documented bound, or exactness for the correctly rounded ops.
func unaryBound(op device.Op) bound {
	if sw, ok := sweeps[op]; ok {
		return sw.b
	}
	if op == device.OpRsqrt {
		return bound{maxULP: 1.5}
	}
	return bound{maxULP: 0.5}
}

// checkUnary compares got against the reference for every element.
func checkUnary(t *testing.T, op device.Op, x, got []float32) {
	t.Helper()
	b := unaryBound(op)
	bad := 0
	for i, v := range x {
		ref := ref64(op, v)
		u, a := errULP(got[i], ref)
		if u <= b.maxULP || (b.absolute(v, ref) && a <= b.maxAbs) {
			continue
		}
		if bad++; bad <= 5 {
			t.Errorf("%v(%g) [i=%d of %d] = %g, want %g (%.2f ulp)", op, v, i, len(x), got[i], ref, u)
		}
	}
}

func TestUnary(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, op := range unaryOps() {
			for _, n := range testLengths {
				scale := float32(10)
				if op == device.OpSin || op == device.OpCos {
					scale = 1e4
				}
				x := randInput(r, n, scale)
				got := poison(n)
				unary(op, got, x)
				checkUnary(t, op, x, got)
				// In place.
				y := append([]float32(nil), x...)
				unary(op, y, y)
				checkUnary(t, op, x, y)
			}
		}
	})
}

// TestUnaryMatchesDevice checks that the test's float64 references agree with
// the contract's scalar semantics (device.UnaryF32) after rounding, except
// where the contract's formula itself cancels.
func TestUnaryMatchesDevice(t *testing.T) {
	r := newRand(t)
	x := randInput(r, 10000, 5)
	for _, op := range unaryOps() {
		for _, v := range x {
			want := device.UnaryF32(op, v)
			got := float32(ref64(op, v))
			if (op == device.OpGeluErf || op == device.OpGeluTanh) && v < -3 {
				continue
			}
			if want != got && !(want != want && got != got) {
				u, _ := errULP(want, ref64(op, v))
				assert.LessOrEqual(t, u, 1.0, "%v(%g): device %g, ref %g", op, v, want, got)
			}
		}
	}
}

func refBinary(op device.Op, a, b float32) float32 { return device.BinaryF32(op, a, b) }

// sameBits reports whether a and b are identical, treating all NaNs alike.
func sameBits(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

func TestBinary(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range testLengths {
			a, b := randInput(r, n, 10), randInput(r, n, 10)
			s := randInput(r, 1, 10)[0]
			for _, op := range binaryOps() {
				got := poison(n)
				binary(op, got, a, b)
				for i := range got {
					if !sameBits(got[i], refBinary(op, a[i], b[i])) {
						t.Fatalf("%v(%g, %g) = %g [i=%d of %d]", op, a[i], b[i], got[i], i, n)
					}
				}
				// Aliasing: dst is a, then b.
				for k, alias := range [][]float32{a, b} {
					d := append([]float32(nil), alias...)
					aa, bb := a, b
					if k == 0 {
						aa = d
					} else {
						bb = d
					}
					binary(op, d, aa, bb)
					for i := range d {
						if !sameBits(d[i], refBinary(op, a[i], b[i])) {
							t.Fatalf("aliased %v(%g, %g) = %g", op, a[i], b[i], d[i])
						}
					}
				}
				got = poison(n)
				scalarOp(op, got, a, s)
				for i := range got {
					if !sameBits(got[i], refBinary(op, a[i], s)) {
						t.Fatalf("%v scalar form (%g, %g) = %g [i=%d of %d]", op, a[i], s, got[i], i, n)
					}
				}
			}
			for _, op := range []device.Op{device.OpSub, device.OpDiv} {
				got := poison(n)
				rscalarOp(op, got, a, s)
				for i := range got {
					if !sameBits(got[i], refBinary(op, s, a[i])) {
						t.Fatalf("%v reversed scalar form (%g, %g) = %g [i=%d of %d]", op, s, a[i], got[i], i, n)
					}
				}
			}
			// NaN in either operand of Maximum/Minimum.
			nan := float32(math.NaN())
			for _, op := range []device.Op{device.OpMax, device.OpMin} {
				got := []float32{0}
				binary(op, got, []float32{nan}, []float32{1})
				assert.True(t, got[0] != got[0])
				binary(op, got, []float32{1}, []float32{nan})
				assert.True(t, got[0] != got[0])
			}
		}
	})
}

func TestFma(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range testLengths {
			a, b, c := randInput(r, n, 10), randInput(r, n, 10), randInput(r, n, 10)
			got := poison(n)
			Fma(got, a, b, c)
			for i := range got {
				ref := math.FMA(float64(a[i]), float64(b[i]), float64(c[i]))
				if u, _ := errULP(got[i], ref); u > 0.5000001 {
					t.Fatalf("Fma(%g, %g, %g) = %g, want %g", a[i], b[i], c[i], got[i], ref)
				}
			}
			Fma(a, a, b, c) // aliasing
			for i := range a {
				if !sameBits(a[i], got[i]) {
					t.Fatalf("aliased Fma differs at %d", i)
				}
			}
		}
	})
}

func TestPanicsOnLengthMismatch(t *testing.T) {
	assert.PanicsWithValue(t, "vec.add: slices of unequal length (dst, a, b = [2 2 3])", func() {
		Add(make([]float32, 2), make([]float32, 2), make([]float32, 3))
	})
	assert.Panics(t, func() { Exp(make([]float32, 1), nil) })
	assert.Panics(t, func() { Max(nil) })
	assert.Panics(t, func() { ArgMin(nil) })
	assert.Panics(t, func() { SetLevel(numLevels) })
}

// TestSpecialValues runs every unary kernel on the special values alone, at
// every position of a vector and in the tail, so each is seen by the
// vector body and the masked tail at every level.
func TestSpecialValues(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range []int{len(specials), 2*len(specials) + 3} {
			x := make([]float32, n)
			for i := range x {
				x[i] = specials[i%len(specials)]
			}
			for _, op := range unaryOps() {
				got := poison(n)
				unary(op, got, x)
				checkUnary(t, op, x, got)
			}
		}
	})
	// A few results spelled out.
	inf := float32(math.Inf(1))
	for _, c := range []struct {
		f    func(dst, x []float32)
		x    float32
		want float32
	}{
		{Exp, inf, inf}, {Exp, -inf, 0}, {Exp, 89, inf}, {Exp, -104, 0},
		{Log, 0, -inf}, {Log, inf, inf}, {Tanh, inf, 1}, {Tanh, -inf, -1},
		{Sigmoid, inf, 1}, {Sigmoid, -inf, 0}, {Erf, inf, 1}, {Erf, -inf, -1},
		{GeluErf, inf, inf}, {GeluTanh, inf, inf}, {Silu, inf, inf}, {Relu, float32(math.Copysign(0, -1)), 0},
		{GeluErfGrad, inf, 1}, {GeluErfGrad, -inf, 0}, {GeluErfGrad, 0, 0.5}, {GeluErfGrad, -20, 0}, {GeluErfGrad, 20, 1},
		{GeluTanhGrad, inf, 1}, {GeluTanhGrad, -inf, 0}, {GeluTanhGrad, 0, 0.5}, {GeluTanhGrad, -35, 0}, {GeluTanhGrad, 35, 1},
	} {
		forEachLevel(t, func(t *testing.T, l Level) {
			got := []float32{0}
			c.f(got, []float32{c.x})
			assert.True(t, sameBits(got[0], c.want), "f(%g) = %g, want %g", c.x, got[0], c.want)
		})
	}
	for _, f := range []func(dst, x []float32){GeluErfGrad, GeluTanhGrad} {
		forEachLevel(t, func(t *testing.T, l Level) {
			got := []float32{0}
			f(got, []float32{float32(math.NaN())})
			assert.True(t, got[0] != got[0], "NaN expected for NaN")
		})
	}
	for _, f := range []func(dst, x []float32){Log, GeluErf, GeluTanh, Silu} {
		forEachLevel(t, func(t *testing.T, l Level) {
			got := []float32{0, 0}
			f(got, []float32{-inf, -1})
			assert.True(t, got[0] != got[0], "NaN expected for -Inf")
		})
	}
}
