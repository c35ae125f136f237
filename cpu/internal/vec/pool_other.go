//go:build (!amd64 && !arm64) || purego

package vec

// archWinKernels returns nil: only pure Go is available on this build.
func archWinKernels(Level) *winKernels { return nil }
