package vec

import (
	"fmt"
	"os"
	"strings"
)

// Level is an instruction-set level the kernels can run at.
type Level uint8

// The levels, from the portable fallback up; an architecture has a subset
// (Go, AVX2 and AVX-512 on amd64, Go and NEON on arm64), and a level of
// another architecture caps nothing.
const (
	LevelGo     Level = iota // pure Go
	LevelAVX2                // AVX2 + FMA + F16C, 256-bit vectors
	LevelAVX512              // AVX-512 F/BW/DQ/VL, 512-bit vectors
	LevelNEON                // arm64 Advanced SIMD, 128-bit vectors
	numLevels
)

var levelNames = [numLevels]string{"go", "avx2", "avx512", "neon"}

// String returns the level's name as SHADERFLOW_CPU_ISA spells it.
func (l Level) String() string {
	if l < numLevels {
		return levelNames[l]
	}
	return fmt.Sprintf("level(%d)", uint8(l))
}

// ParseLevel parses a level name: "go", "avx2", "avx512" or "neon"
// (case-insensitive).
func ParseLevel(s string) (Level, error) {
	for l, n := range levelNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Level(l), nil
		}
	}
	return LevelGo, fmt.Errorf("vec: unknown ISA level %q (want go, avx2, avx512 or neon)", s)
}

// EnvVar is the environment variable that caps the level at start-up.
const EnvVar = "SHADERFLOW_CPU_ISA"

var (
	tables   [numLevels]*kernels // nil where the level is unavailable
	detected Level               // the best level this CPU and build support
	current  *kernels
	curLevel Level
	envErr   error
)

func init() {
	tables[LevelGo] = goKernels()
	detected = LevelGo
	for l := LevelGo + 1; l < numLevels; l++ {
		if t := archKernels(l); t != nil {
			tables[l] = t
			detected = l
		}
	}
	curLevel = detected
	if s, ok := os.LookupEnv(EnvVar); ok && s != "" {
		l, err := ParseLevel(s)
		if err != nil {
			envErr = err
		} else if l < curLevel && tables[l] != nil { // another architecture's level is ignored
			curLevel = l
		}
	}
	current = tables[curLevel]
}

// Detected returns the best level this CPU and build support, ignoring
// SHADERFLOW_CPU_ISA. Builds with the purego tag and non-amd64 builds
// detect LevelGo.
func Detected() Level { return detected }

// Current returns the level the kernels run at.
func Current() Level { return curLevel }

// Available returns every level this machine can run, lowest first.
func Available() []Level {
	var ls []Level
	for l := LevelGo; l < numLevels; l++ {
		if tables[l] != nil {
			ls = append(ls, l)
		}
	}
	return ls
}

// EnvError returns the error from parsing SHADERFLOW_CPU_ISA at start-up, or
// nil. An unparsable value is otherwise ignored.
func EnvError() error { return envErr }

// SetLevel makes the kernels run at level l and returns the previous level.
// It is meant for tests and benchmarks: it must not run concurrently with
// any kernel. It panics if l is not available on this machine.
func SetLevel(l Level) Level {
	if l >= numLevels || tables[l] == nil {
		panic(fmt.Sprintf("vec: SetLevel(%v): this machine supports up to %v", l, detected))
	}
	prev := curLevel
	curLevel, current = l, tables[l]
	return prev
}
