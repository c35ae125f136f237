//go:build cgo && linux

package cuda

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestReduceBlockShufflesInPTX compiles the block reduction kernel of a
// row sum and of an argmax with clang-19 for sm_90 and checks that the
// tree's last levels are warp shuffles (shfl.sync.bfly, which clang
// emits for NVVM's builtins as NVRTC does for __shfl_xor_sync). Results
// through the double are checked by TestReduceKernels and
// TestReduceEdgeCases; nothing here ran on a GPU.
func TestReduceBlockShufflesInPTX(t *testing.T) {
	clang := requireClang(t)
	f32 := device.Float32
	for _, op := range []device.ReduceOp{device.ReduceSum, device.ReduceArgMax} {
		out := f32
		if op == device.ReduceArgMax {
			out = device.Int32
		}
		var e device.Builder
		e.Output(e.Input(0, out))
		k := &device.ReduceKernel{Op: op, OutShape: []int{4}, RedShape: []int{1024},
			Inputs:   []device.View{{DType: f32, Shape: []int{4, 1024}, Strides: []int{1024, 1}}},
			Prologue: device.Identity(f32), Epilogue: e.P,
			Outputs: []device.View{{DType: out, Shape: []int{4}, Strides: []int{1}}}}
		dir := t.TempDir()
		cu := filepath.Join(dir, "reduce_block.cu")
		require.NoError(t, os.WriteFile(cu, []byte(renderReduceBlock(k)), 0o644))
		cmd := exec.Command(clang, append(clangCUDAFlags("sm_90"), "-o", filepath.Join(dir, "out.ptx"), cu)...)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", cmd, b)
		ptx, err := os.ReadFile(filepath.Join(dir, "out.ptx"))
		require.NoError(t, err)
		s := string(ptx)
		assert.Contains(t, s, ".visible .entry "+rdBlockEntry+"(")
		assert.Contains(t, s, "shfl.sync.bfly.b32", "%v", op)
	}
}
