//go:build (amd64 || arm64) && !purego

package vec

// convTail wraps a conversion kernel that handles whole vectors only.
func convTail[D, S any](f func(dst []D, src []S), scalar func(S) D) func(dst []D, src []S) {
	return func(dst []D, src []S) {
		f(dst, src)
		for i := len(src) &^ 15; i < len(src); i++ {
			dst[i] = scalar(src[i])
		}
	}
}

// widenTail completes an addWidened kernel that covers the first
// len(src)&^(step-1) elements with the Go loop for the rest.
func widenTail(f func(dst []float64, src []float32), step int) func(dst []float64, src []float32) {
	return func(dst []float64, src []float32) {
		f(dst, src)
		n := len(src) &^ (step - 1)
		goAddWidened(dst[n:], src[n:])
	}
}
