//go:build (amd64 || arm64) && !purego

package vec

// trig wraps a sin or cos kernel that stops at the first vector holding an
// argument beyond its range: that vector is finished in Go (which falls back
// to the math package for those lanes) and the kernel resumes after it.
func trig(f func(dst, x []float32) int, cos bool) func(dst, x []float32) {
	return func(dst, x []float32) {
		for len(x) > 0 {
			k := f(dst, x)
			dst, x = dst[k:], x[k:]
			m := min(len(x), 16)
			for i, v := range x[:m] {
				dst[i] = sincos32(v, cos)
			}
			dst, x = dst[m:], x[m:]
		}
	}
}
