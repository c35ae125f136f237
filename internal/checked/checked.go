package checked

import "math/bits"

// Mul returns a*b and whether the product of the non-negative a and b fits
// in an int. A negative operand reports false.
func Mul(a, b int) (int, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > uint64(maxInt) {
		return 0, false
	}
	return int(lo), true
}

// Add returns a+b and whether the sum of the non-negative a and b fits in an
// int. A negative operand reports false.
func Add(a, b int) (int, bool) {
	if a < 0 || b < 0 || a > maxInt-b {
		return 0, false
	}
	return a + b, true
}

// Product returns the product of dims and whether it fits in an int. Any
// negative dimension reports false; a zero dimension makes the product zero
// whatever the others are.
func Product(dims ...int) (int, bool) {
	zero := false
	for _, d := range dims {
		if d < 0 {
			return 0, false
		}
		zero = zero || d == 0
	}
	if zero {
		return 0, true
	}
	return Extent(dims...)
}

// Extent returns the product of the dimensions counting zeros as one, and
// whether it fits in an int: the largest row-major stride-times-size a shape
// needs, which must be representable even when the shape holds no elements.
func Extent(dims ...int) (int, bool) {
	n := 1
	for _, d := range dims {
		var ok bool
		if n, ok = Mul(n, max(d, 1)); !ok || d < 0 {
			return 0, false
		}
	}
	return n, true
}

const maxInt = int(^uint(0) >> 1)
