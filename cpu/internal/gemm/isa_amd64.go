//go:build !purego

package gemm

import "golang.org/x/sys/cpu"

// detectLevel picks the best level the CPU and operating system support.
func detectLevel() level {
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasBMI2: // the AVX-512 packers use SHLX
		return levelAVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return levelAVX2
	}
	return levelGo
}

// archLevels are the assembly levels of this architecture, lowest first.
var archLevels = []level{levelAVX2, levelAVX512}
