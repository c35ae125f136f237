package cuda

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyParamBytes is the size of the copy kernel's parameter struct: five
// 64-bit scalars and three arrays of copyMaxRank.
const copyParamBytes = (5 + 3*copyMaxRank) * 8

// TestCopyKernelCompilesToPTX compiles kernels/copy.cu with clang-19 (CUDA
// without the toolkit) for sm_80 and sm_90 and checks the entry point and
// its parameters. It skips without clang-19 unless SHADERFLOW_REQUIRE_CLANG=1.
func TestCopyKernelCompilesToPTX(t *testing.T) {
	clang := requireClang(t)
	for _, arch := range []string{"sm_80", "sm_90"} {
		out := filepath.Join(t.TempDir(), arch+".ptx")
		cmd := exec.Command(clang, append(clangCUDAFlags(arch), "-o", out, "kernels/copy.cu")...)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", cmd, b)
		ptx, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Contains(t, string(ptx), ".target "+arch)
		assert.Contains(t, string(ptx), ".visible .entry sf_copy(")
		assert.Regexp(t, regexp.MustCompile(`\.param \.u64 sf_copy_param_0,\s+\.param \.u64 sf_copy_param_1,`), string(ptx))
		assert.Contains(t, string(ptx), fmt.Sprintf(".param .align 8 .b8 sf_copy_param_2[%d]", copyParamBytes))
	}
}

// requireClang returns clang-19's path, or skips the test without it unless
// SHADERFLOW_REQUIRE_CLANG=1, which makes its absence a failure.
func requireClang(t *testing.T) string {
	t.Helper()
	clang, err := exec.LookPath("clang-19")
	if err != nil {
		if os.Getenv("SHADERFLOW_REQUIRE_CLANG") == "1" {
			t.Fatal("SHADERFLOW_REQUIRE_CLANG=1 but clang-19 is not installed: ", err)
		}
		t.Skip("clang-19 is not installed (Debian: apt-get install clang-19): ", err)
	}
	return clang
}

// clangCUDAFlags are clang's flags to compile CUDA C to PTX for arch without
// the toolkit. NVRTC defines __global__, __device__ and the thread indices
// itself; clang without CUDA's headers needs them.
func clangCUDAFlags(arch string) []string {
	return []string{"--cuda-device-only", "--cuda-gpu-arch=" + arch, "-nocudainc", "-nocudalib",
		"-Xclang", "-target-feature", "-Xclang", "+ptx80", "-O3", "-S",
		"-D__global__=__attribute__((global))", "-D__device__=__attribute__((device))",
		"-include", "__clang_cuda_builtin_vars.h"}
}
