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

// repeatTail completes a repeatRuns kernel, whose runs store whole vectors
// of lanes floats, with the Go loop for the last runs, whose vectors would
// reach past dst.
func repeatTail(f func(dst, src []float32, n int), lanes int) func(dst, src []float32, n int) {
	return func(dst, src []float32, n int) {
		safe := 0 // runs whose stores stay inside dst
		if reach := (n + lanes - 1) / lanes * lanes; n > 0 && len(dst) >= reach {
			safe = min(len(src), (len(dst)-reach)/n+1)
		}
		f(dst, src[:safe], n)
		goRepeat(dst[safe*n:], src[safe:], n)
	}
}

// argTail completes a NEON argMaxInto, argMinInto or poolMaxInto kernel
// that covers the first len(x)&^(lanes-1) elements with the Go loop for the
// rest.
func argTail(f func(best []float32, idx []int32, x []float32, row int32), lanes int, r argRule) func(best []float32, idx []int32, x []float32, row int32) {
	return func(best []float32, idx []int32, x []float32, row int32) {
		f(best, idx, x, row)
		n := len(x) &^ (lanes - 1)
		goArgInto(best[n:], idx[n:], x[n:], row, r)
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
