package vec

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// modeLengths cover the aligning head alone (n below a vector), head plus
// tail, the unrolled loops and a length far beyond the prefetch distance.
var modeLengths = []int{0, 1, 5, 15, 16, 17, 31, 33, 64, 65, 127, 200, 1001, 20011}

// modeCase runs the kernel of every mode on one input layout and checks
// each against the Cached result bit for bit, and that nothing outside
// dst was written.
type modeCase struct {
	name string
	// run computes into dst from the inputs at offset off of their
	// buffers with s's kernel.
	run func(s *Set, dst []float32, in [][]float32)
	ins int
}

func modeCases() []modeCase {
	var cs []modeCase
	for _, op := range unaryOps() {
		cs = append(cs, modeCase{name: op.String(), ins: 1, run: func(s *Set, dst []float32, in [][]float32) {
			s.Unary[op](dst, in[0])
		}})
	}
	for _, op := range binaryOps() {
		cs = append(cs, modeCase{name: op.String(), ins: 2, run: func(s *Set, dst []float32, in [][]float32) {
			s.Binary[op](dst, in[0], in[1])
		}})
	}
	for _, op := range binaryOps() {
		cs = append(cs, modeCase{name: kernelName(op, "scalar"), ins: 1, run: func(s *Set, dst []float32, in [][]float32) {
			s.Scalar[op](dst, in[0], 1.5)
		}})
	}
	for _, op := range []device.Op{device.OpSub, device.OpDiv} {
		cs = append(cs, modeCase{name: kernelName(op, "rscalar"), ins: 1, run: func(s *Set, dst []float32, in [][]float32) {
			s.ScalarLeft[op](dst, in[0], 1.5)
		}})
	}
	cs = append(cs,
		modeCase{name: "Fma", ins: 3, run: func(s *Set, dst []float32, in [][]float32) { s.Fma(dst, in[0], in[1], in[2]) }},
		modeCase{name: "Copy", ins: 1, run: func(s *Set, dst []float32, in [][]float32) { s.Copy(dst, in[0]) }})
	return cs
}

// TestModesMatchCached checks every kernel of every mode against the
// cached kernel (itself checked against float64 references) bit for bit,
// at every level, for destinations at every float offset from a 64-byte
// boundary (the streaming kernels' aligning head), odd lengths, inputs
// with NaN, infinities and other specials, and in place.
func TestModesMatchCached(t *testing.T) {
	r := newRand(t)
	const guard = 20
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, c := range modeCases() {
			for _, n := range modeLengths {
				for off := 0; off < 17; off += 1 + 4*(n/1000) {
					var in [][]float32
					for range c.ins {
						in = append(in, randInput(r, n, 10))
					}
					want := poison(n)
					c.run(&Sets[Cached], want, in)
					for m := Prefetch; m < numModes; m++ {
						buf := aligned64(n + off + guard)
						dst := buf[off : off+n]
						copy(dst, poison(n))
						c.run(&Sets[m], dst, in)
						what := fmt.Sprintf("%v %s n=%d dst offset %d", m, c.name, n, off)
						requireSame(t, want, dst, what)
						for i, v := range buf[off+n:] {
							if math.Float32bits(v) != 0 {
								require.Zero(t, math.Float32bits(v), "%s: wrote element %d past the end", what, i)
							}
						}
						for i, v := range buf[:off] {
							if math.Float32bits(v) != 0 {
								require.Zero(t, math.Float32bits(v), "%s: wrote element %d before the start", what, i-off)
							}
						}
						// In place: dst is the first input.
						y := append(aligned64(off)[:off:off], in[0]...)[off:]
						args := append([][]float32{y}, in[1:]...)
						if c.name != "Copy" {
							c.run(&Sets[m], y, args)
							requireSame(t, want, y, what+" in place")
						}
					}
				}
			}
		}
	})
}

// aligned64 returns n zeros starting at a 64-byte boundary.
func aligned64(n int) []float32 {
	b := make([]float32, n+16)
	skip := int((64 - uintptr(unsafe.Pointer(unsafe.SliceData(b)))%64) % 64 / 4)
	return b[skip : skip+n]
}

// requireSame fails unless got equals want bit for bit (any NaN matching
// any NaN).
func requireSame(t *testing.T, want, got []float32, what string) {
	t.Helper()
	for i := range want {
		if !sameBits(want[i], got[i]) {
			require.Failf(t, "mismatch", "%s: element %d = %g (%#08x), want %g (%#08x)", what, i,
				got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestModesMisalignedFloats checks that a destination not aligned to 4
// bytes (a float32 view of bytes at an odd address) falls back to
// ordinary stores rather than faulting.
func TestModesMisalignedFloats(t *testing.T) {
	raw := make([]byte, 4*100+1)
	dst := unsafe.Slice((*float32)(unsafe.Pointer(&raw[1])), 100)
	x := make([]float32, 100)
	for i := range x {
		x[i] = float32(i) - 50
	}
	Sets[Stream].Unary[device.OpRelu](dst, x)
	for i, v := range x {
		assert.Equal(t, max(v, 0), dst[i])
	}
}

func TestModeLengthMismatchPanics(t *testing.T) {
	assert.PanicsWithValue(t, "vec.tanh: slices of unequal length (dst, x = [3 4])", func() {
		Sets[Stream].Unary[device.OpTanh](make([]float32, 3), make([]float32, 4))
	})
	assert.PanicsWithValue(t, "vec.add_scalar: slices of unequal length (dst, a = [3 4])", func() {
		Sets[Prefetch].Scalar[device.OpAdd](make([]float32, 3), make([]float32, 4), 1)
	})
	assert.PanicsWithValue(t, "vec.scalar_div: slices of unequal length (dst, a = [3 4])", func() {
		Sets[Prefetch].ScalarLeft[device.OpDiv](make([]float32, 3), make([]float32, 4), 1)
	})
	assert.Equal(t, "stream", Stream.String())
}
