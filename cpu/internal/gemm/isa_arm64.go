//go:build !purego

package gemm

// detectLevel returns the NEON level: Advanced SIMD with FMLA is part of
// every arm64 (ARMv8-A) processor.
func detectLevel() level { return levelNEON }

// archLevels are the assembly levels of this architecture.
var archLevels = []level{levelNEON}
