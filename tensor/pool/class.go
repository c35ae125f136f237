package pool

import (
	"math"
	"math/bits"
)

// Size-class parameters.
const (
	// MinBlockBytes is the smallest block the pool allocates; zero-byte and
	// other small requests get a block of this size. Every class size is a
	// multiple of it.
	MinBlockBytes = 256
	// smallClassLimit is the largest size rounded to a multiple of
	// MinBlockBytes; above it, each power of two is split into
	// classesPerOctave classes.
	smallClassLimit  = 2048
	classesPerOctave = 8
)

// ClassSize returns the size class of a request of n bytes: the number of
// bytes the pool allocates for it. Up to 2 KiB, requests round up to a
// multiple of 256 bytes; a larger request in (2^k, 2^(k+1)] rounds up to a
// multiple of 2^(k-3), so the waste stays below 12.5% of the request. Class
// sizes never decrease as n grows. A request too close to math.MaxInt64 to
// round is returned unchanged. ClassSize panics if n is negative.
func ClassSize(n int64) int64 {
	if n < 0 {
		panic("pool: ClassSize of negative size")
	}
	if n <= MinBlockBytes {
		return MinBlockBytes
	}
	step := int64(MinBlockBytes)
	if n > smallClassLimit {
		k := bits.Len64(uint64(n-1)) - 1 // 2^k < n <= 2^(k+1)
		step = int64(1) << (k - 3)       // k >= 11 here, so step >= 256
	}
	if n > math.MaxInt64-step {
		return n
	}
	return (n + step - 1) / step * step
}
