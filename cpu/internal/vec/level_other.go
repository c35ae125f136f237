//go:build (!amd64 && !arm64) || purego

package vec

// archKernels returns nil: only pure Go is available on this build.
func archKernels(Level) *kernels { return nil }
