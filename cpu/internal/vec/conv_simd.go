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
