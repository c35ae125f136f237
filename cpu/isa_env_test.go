package cpu

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
)

// TestISAEnvironmentIsHonoured fails when SHADERFLOW_CPU_ISA names no level,
// or names a level this machine and build run that the kernels do not use:
// a run meant for one level (.ci/run runs each) must not pass at another.
func TestISAEnvironmentIsHonoured(t *testing.T) {
	s := os.Getenv(vec.EnvVar)
	if s == "" {
		t.Skip(vec.EnvVar + " is not set")
	}
	require.NoError(t, vec.EnvError(), "%s=%q", vec.EnvVar, s)
	assert.NotContains(t, hostInfo().Driver, "ignored")
	l, err := vec.ParseLevel(s)
	require.NoError(t, err)
	if !slices.Contains(vec.Available(), l) {
		t.Skipf("%s=%s: this machine or build cannot run it (levels %v); it is ignored", vec.EnvVar, s, vec.Available())
	}
	assert.Equal(t, l, vec.Current(), "elementwise kernels")
	assert.Equal(t, l.String(), GemmISA(), "matrix-multiply kernels")
}

// TestIgnoredISAEnvironmentIsReported checks that the device's driver string
// names an unparsable SHADERFLOW_CPU_ISA, in a child process that reads it
// at start-up.
func TestIgnoredISAEnvironmentIsReported(t *testing.T) {
	if os.Getenv("CPU_ISA_ENV_CHILD") == "1" {
		assert.Contains(t, hostInfo().Driver, vec.EnvVar+" ignored: ")
		assert.Error(t, vec.EnvError())
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestIgnoredISAEnvironmentIsReported$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CPU_ISA_ENV_CHILD=1", vec.EnvVar+"=avx")
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skip("this binary cannot start itself (run by an emulator such as qemu-aarch64-static)")
	}
	require.NoError(t, err, string(out))
}
