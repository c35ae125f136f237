//go:build !purego

package vec

// archWinKernels returns the pure-Go window kernels for LevelNEON: there
// are no NEON window kernels yet.
func archWinKernels(l Level) *winKernels {
	if l != LevelNEON {
		return nil
	}
	return goWinKernels()
}
