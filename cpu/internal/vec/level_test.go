package vec

import (
	"github.com/shaderflow/shaderflow/tensor/device"

	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseLevel(t *testing.T) {
	for _, c := range []struct {
		s    string
		want Level
	}{{"go", LevelGo}, {"AVX2", LevelAVX2}, {" avx512 ", LevelAVX512}} {
		l, err := ParseLevel(c.s)
		require.NoError(t, err)
		assert.Equal(t, c.want, l)
		assert.Equal(t, l, mustParse(t, l.String()))
	}
	_, err := ParseLevel("sse")
	assert.ErrorContains(t, err, `unknown ISA level "sse"`)
}

func mustParse(t *testing.T, s string) Level {
	l, err := ParseLevel(s)
	require.NoError(t, err)
	return l
}

func TestLevels(t *testing.T) {
	av := Available()
	require.NotEmpty(t, av)
	assert.Equal(t, LevelGo, av[0])
	assert.Equal(t, Detected(), av[len(av)-1])
	assert.LessOrEqual(t, Current(), Detected())
	t.Logf("detected %v, running at %v, available %v", Detected(), Current(), av)
	prev := SetLevel(LevelGo)
	assert.Equal(t, LevelGo, Current())
	SetLevel(prev)
	assert.Equal(t, prev, Current())
}

// TestTrigFallback puts out-of-range arguments at every position of a
// vector and in the tail: those lanes must match the math package and the
// others the polynomial kernel.
func TestTrigFallback(t *testing.T) {
	r := newRand(t)
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range []int{1, 16, 17, 40, 1000} {
			for _, pos := range []int{0, n / 2, n - 1} {
				x := randInput(r, n, 100)
				x[pos] = 2e6 + float32(pos)
				for _, op := range []device.Op{device.OpSin, device.OpCos} {
					got := poison(n)
					unary(op, got, x)
					checkUnary(t, op, x, got)
				}
			}
		}
	})
}

// TestEnvCap runs this test binary again with SHADERFLOW_CPU_ISA set and
// checks the level the child starts at.
func TestEnvCap(t *testing.T) {
	if os.Getenv("VEC_ENV_CHILD") != "" {
		fmt.Printf("level=%v err=%v\n", Current(), EnvError())
		return
	}
	avx2 := Detected() // another architecture's level is ignored
	if tables[LevelAVX2] != nil {
		avx2 = min(LevelAVX2, Detected())
	}
	for _, c := range []struct{ env, want string }{
		{"go", "level=go err=<nil>"},
		{"avx2", fmt.Sprintf("level=%v err=<nil>", avx2)},
		{"neon", fmt.Sprintf("level=%v err=<nil>", Detected())},
		{"AVX512", fmt.Sprintf("level=%v err=<nil>", Detected())},
		{"bogus", fmt.Sprintf("level=%v err=vec: unknown ISA level \"bogus\" (want go, avx2, avx512 or neon)", Detected())},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvCap$")
		cmd.Env = append(os.Environ(), "VEC_ENV_CHILD=1", EnvVar+"="+c.env)
		out, err := cmd.CombinedOutput()
		if errors.Is(err, syscall.ENOEXEC) {
			t.Skip("this binary cannot start itself (run by an emulator such as qemu-aarch64-static)")
		}
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), c.want, "%s=%s", EnvVar, c.env)
	}
}

func TestMeasureBandwidth(t *testing.T) {
	g := MeasureBandwidth(2, 3<<20)
	t.Logf("triad over 3 MiB on 2 goroutines: %.1f GB/s", g)
	assert.Greater(t, g, 0.1)
	assert.Less(t, g, 1e4)
}
