package gemm

import (
	"os"
	"os/exec"
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
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "ISA=go")
}
