package gemm

import (
	"os"
	"strings"
)

// level is an instruction-set level of the micro-kernels, ordered from the
// portable fallback up.
type level int

// The levels.
const (
	levelGo level = iota
	levelAVX2
	levelAVX512
)

var levelNames = [...]string{"go", "avx2", "avx512"}

func (l level) String() string { return levelNames[l] }

// parseLevel maps a name ("go", "avx2", "avx512", any case) to its level.
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
	active  = capLevel(hwLevel, os.Getenv(envISA))
)

// capLevel lowers l to the level named by env, if env names a lower one.
func capLevel(l level, env string) level {
	if c, ok := parseLevel(env); ok && c < l {
		return c
	}
	return l
}

// ISA returns the instruction set the micro-kernels use: "avx512", "avx2" or
// "go".
func ISA() string { return active.String() }

// setLevel switches the active level (tests and benchmarks run every level
// the machine supports) and returns a function that restores the previous
// one. It must not run concurrently with Sgemm.
func setLevel(l level) (restore func()) {
	if l > hwLevel {
		panic("gemm: level " + l.String() + " is not supported by this machine or build")
	}
	old := active
	active = l
	return func() { active = old }
}

// supportedLevels lists the levels this machine and build can run, lowest
// first.
func supportedLevels() []level {
	var ls []level
	for l := levelGo; l <= hwLevel; l++ {
		ls = append(ls, l)
	}
	return ls
}
