//go:build amd64 && !purego

package vec

// archKernels returns the assembly kernels of level l when the CPU supports it.
func archKernels(l Level) *kernels { return nil }
