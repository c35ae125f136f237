package vec

// Repeat sets dst[i*n+j] = src[i] for every i < len(src) and j < n: each
// value repeated over a run of n (a row's maximum or mean expanded over its
// row). It panics unless len(dst) == len(src)*n and n >= 0.
func Repeat(dst, src []float32, n int) {
	if n < 0 || len(dst) != len(src)*n {
		panic("vec.Repeat: want len(dst) == len(src)*n, n >= 0")
	}
	if n > 0 {
		current.repeat(dst, src, n)
	}
}
