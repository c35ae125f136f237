package vec

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestHalfToFloatExhaustive converts all 65536 half and bfloat16 values.
func TestHalfToFloatExhaustive(t *testing.T) {
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range []int{len(src), len(src) - 1, 17, 15, 1} {
			got := poison(n)
			Float16ToFloat32(got, src[:n])
			for i, h := range src[:n] {
				if want := device.Float16ToFloat32(h); math.Float32bits(want) != math.Float32bits(got[i]) {
					t.Fatalf("half %#04x: got %#08x, want %#08x", h, math.Float32bits(got[i]), math.Float32bits(want))
				}
			}
			got = poison(n)
			BFloat16ToFloat32(got, src[:n])
			for i, h := range src[:n] {
				if want := device.BFloat16ToFloat32(h); math.Float32bits(want) != math.Float32bits(got[i]) {
					t.Fatalf("bfloat16 %#04x: got %#08x, want %#08x", h, math.Float32bits(got[i]), math.Float32bits(want))
				}
			}
		}
	})
}

// floatSweep returns every float32 whose top 16 bits take each of the 65536
// values, combined with low 16 bits that hit the rounding boundaries of both
// formats (ties, just above and below) and a few others.
func floatSweep() []float32 {
	lows := []uint32{0, 1, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000, 0x8001, 0x9000, 0xafff, 0xffff}
	out := make([]float32, 0, 1<<16*len(lows))
	for hi := uint32(0); hi < 1<<16; hi++ {
		for _, lo := range lows {
			out = append(out, math.Float32frombits(hi<<16|lo))
		}
	}
	return out
}

// TestFloatToHalfSweep checks float32 -> float16 and -> bfloat16 against the
// scalar functions bit for bit, NaN payloads included.
func TestFloatToHalfSweep(t *testing.T) {
	src := floatSweep()
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range []int{len(src), len(src) - 3, 33, 7} {
			got := make([]uint16, n)
			Float32ToFloat16(got, src[:n])
			for i, f := range src[:n] {
				if want := device.Float32ToFloat16(f); want != got[i] {
					t.Fatalf("float16 of %#08x: got %#04x, want %#04x", math.Float32bits(f), got[i], want)
				}
			}
			Float32ToBFloat16(got, src[:n])
			for i, f := range src[:n] {
				if want := device.Float32ToBFloat16(f); want != got[i] {
					t.Fatalf("bfloat16 of %#08x: got %#04x, want %#04x", math.Float32bits(f), got[i], want)
				}
			}
		}
	})
}
