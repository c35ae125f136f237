package gemm

import (
	"os"
	"strings"
)

// level is an instruction-set level of the micro-kernels, ordered from the
// portable fallback up (an architecture's levels are a subset: Go and NEON
// on arm64, Go, AVX2 and AVX-512 on amd64).
type level int

// The levels.
const (
	levelGo   level = iota
	levelNEON       // arm64 Advanced SIMD
	levelAVX2
	levelAVX512
)

var levelNames = [...]string{"go", "neon", "avx2", "avx512"}

func (l level) String() string { return levelNames[l] }

// parseLevel maps a name ("go", "avx2", "avx512", "neon", any case) to its
// level.
func parseLevel(s string) (level, bool) {
	for i, n := range levelNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return level(i), true
		}
	}
	return levelGo, false
}

// envISA is the environment variable that caps the level.
const envISA = "SHADERFLOW_CPU_ISA"

// hwLevel is the best level this machine and build support; active is the
// level in use: hwLevel capped by SHADERFLOW_CPU_ISA.
var (
	hwLevel = detectLevel()
	active  = capLevel(hwLevel, buildLevelsOnly(os.Getenv(envISA)))
)

// buildLevelsOnly returns env, or "" when env names a level of another
// architecture (avx2 on arm64, neon on amd64), which is ignored like an
// unknown name rather than taken as a cap.
func buildLevelsOnly(env string) string {
	l, ok := parseLevel(env)
	if !ok || l == levelGo {
		return env
	}
	for _, a := range archLevels {
		if a == l {
			return env
		}
	}
	return ""
}

// capLevel lowers l to the level named by env, if env names a lower one.
func capLevel(l level, env string) level {
	if c, ok := parseLevel(env); ok && c < l {
		return c
	}
	return l
}

// ISA returns the instruction set the micro-kernels use: "avx512", "avx2",
// "neon" or "go".
func ISA() string { return active.String() }

// setLevel switches the active level (tests and benchmarks run every level
// the machine supports) and returns a function that restores the previous
// one. It must not run concurrently with Sgemm.
func setLevel(l level) (restore func()) {
	if !levelSupported(l) {
		panic("gemm: level " + l.String() + " is not supported by this machine or build")
	}
	old := active
	active = l
	return func() { active = old }
}

// levelSupported reports whether this machine and build can run level l.
func levelSupported(l level) bool {
	for _, s := range supportedLevels() {
		if s == l {
			return true
		}
	}
	return false
}

// supportedLevels lists the levels this machine and build can run, lowest
// first.
func supportedLevels() []level {
	ls := []level{levelGo}
	for _, l := range archLevels {
		if l <= hwLevel {
			ls = append(ls, l)
		}
	}
	return ls
}
