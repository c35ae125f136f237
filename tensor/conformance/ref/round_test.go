package ref

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shaderflow/shaderflow/tensor/device"
)

func TestRoundHand(t *testing.T) {
	assert.Equal(t, 1.0, RoundFloat16(1+math.Ldexp(1, -11)), "tie to even")
	assert.Equal(t, 1+math.Ldexp(1, -9), RoundFloat16(1+3*math.Ldexp(1, -11)), "tie to even, upwards")
	assert.Equal(t, 65504.0, RoundFloat16(65519))
	assert.True(t, math.IsInf(RoundFloat16(65520), 1))
	assert.Equal(t, math.Ldexp(1, -24), RoundFloat16(math.Ldexp(1.4, -24)), "subnormal")
	assert.Equal(t, 0.0, RoundFloat16(math.Ldexp(1, -26)))
	assert.Equal(t, 1.0, RoundBFloat16(1+math.Ldexp(1, -8)))
	assert.Equal(t, 1+math.Ldexp(1, -7), RoundBFloat16(1+math.Ldexp(3, -9)))
	assert.True(t, math.IsNaN(RoundBFloat16(math.NaN())))
}

// TestRoundMatchesDevice compares the float64 rounding with the device
// package's bit-level converters, an independent implementation.
func TestRoundMatchesDevice(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 1))
	for range 200000 {
		f := math.Float32frombits(r.Uint32())
		if f != f {
			continue
		}
		h := float64(device.Float16ToFloat32(device.Float32ToFloat16(f)))
		b := float64(device.BFloat16ToFloat32(device.Float32ToBFloat16(f)))
		if !assert.Equal(t, h, RoundFloat16(float64(f)), "float16 of %g (seed %d)", f, seed) ||
			!assert.Equal(t, b, RoundBFloat16(float64(f)), "bfloat16 of %g (seed %d)", f, seed) {
			return
		}
	}
}
