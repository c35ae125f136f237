package device

import "math"

// The counter-based random-number generator shared by every backend: the
// value at linear output position i of a stream depends only on (seed, i), so
// random tensors are independent of how a kernel is split into threads.
// Uniform numbers are integer arithmetic and one exact scaling, identical on
// every backend. Normal numbers pass through log, sqrt and cos, whose GPU
// versions are a few ulp off: they agree across backends within
// NormalTolerance, and are identical only on one backend.

// Hash32 is the PCG output hash of x.
func Hash32(x uint32) uint32 {
	state := x*747796405 + 2891336453
	word := ((state >> ((state >> 28) + 4)) ^ state) * 277803737
	return (word >> 22) ^ word
}

// StreamKey folds a 64-bit seed into the 32-bit key that RandomBits uses.
func StreamKey(seed uint64) uint32 {
	return Hash32(uint32(seed) ^ Hash32(uint32(seed>>32)+0x9e3779b9))
}

// RandomBits returns 32 random bits for counter c of the stream with key.
func RandomBits(key, c uint32) uint32 { return Hash32(Hash32(c^key) + key) }

// Uniform returns the uniform [0,1) number at position i of the stream key:
// the top 24 bits of RandomBits(key, 2i) scaled by 2^-24.
func Uniform(key uint32, i uint32) float32 {
	return float32(RandomBits(key, 2*i)>>8) * (1.0 / 16777216)
}

// NormalTolerance bounds the absolute difference between a backend's normal
// numbers and Normal's: the GPU's transcendentals (WGSL allows log an
// absolute error of 2^-21 near 1) move the values closest to zero the most.
const NormalTolerance = 1e-4

// Normal returns the standard normal number at position i of the stream key,
// by the Box-Muller transform of RandomBits(key, 2i) and RandomBits(key, 2i+1).
func Normal(key uint32, i uint32) float32 {
	u1 := (float64(RandomBits(key, 2*i)>>8) + 1) * (1.0 / 16777216) // (0,1]
	u2 := float64(RandomBits(key, 2*i+1)>>8) * (1.0 / 16777216)
	return float32(math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2))
}
