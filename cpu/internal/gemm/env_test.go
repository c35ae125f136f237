package gemm

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEnvCap runs this test binary again with SHADERFLOW_CPU_ISA=go and
// checks that the child reports the capped level.
func TestEnvCap(t *testing.T) {
	if os.Getenv("GEMM_ENV_CHILD") == "1" {
		os.Stdout.WriteString("ISA=" + ISA() + "\n")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEnvCap$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GEMM_ENV_CHILD=1", envISA+"=go")
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.ENOEXEC) {
		t.Skip("this binary cannot start itself (run by an emulator such as qemu-aarch64-static)")
	}
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "ISA=go")
}
