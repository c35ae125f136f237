package cuda

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestSoftmaxThreadsPerRow checks W for each row length: one thread for
// rows of up to four, up to a warp the power of two that gives a thread
// at most four elements, a warp up to smWarpCols, a block beyond (the smallest of 256, 512 and 1024
// threads that holds 16 elements a thread, else 1024).
func TestSoftmaxThreadsPerRow(t *testing.T) {
	for cols, w := range map[int]int{1: 1, 2: 1, 4: 1, 5: 2, 17: 8, 32: 8, 33: 16, 128: 32, 129: 32, 512: 32, 513: 256, 4096: 256, 4097: 512,
		8192: 512, 8193: 1024, 100000: 1024} {
		assert.Equal(t, w, smThreadsPerRow(cols), "%d columns", cols)
	}
}

// TestPlanSoftmaxManyRows plans a softmax of more than 2^31 rows (a view
// never allocated: planning reads only shapes and strides): one launch
// whose row count exceeds 2^31-1 (the kernel counts rows in 64 bits) and
// whose row groups exceed the grid tileGrid launches (the kernel's
// grid-stride loop covers them), with the row dimensions merged and
// Out's offset kept.
func TestPlanSoftmaxManyRows(t *testing.T) {
	rows := 3 << 30
	require.Greater(t, rows, math.MaxInt32)
	k := &device.SoftmaxKernel{
		In:  device.View{DType: device.Float32, Shape: []int{3, 1 << 30, 2}, Strides: []int{1 << 31, 2, 1}, Offset: 5},
		Out: device.View{DType: device.Float32, Shape: []int{3, 1 << 30, 2}, Strides: []int{1 << 31, 2, 1}, Offset: 7},
		Log: true,
	}
	ls := planRows([]device.View{k.In}, k.Out, 1, []uint64{100}, 200)
	require.Len(t, ls, 1)
	w := ls[0]
	assert.Equal(t, int64(rows), w[smRows])
	assert.Equal(t, int64(1), w[smRank], "the row dimensions merge")
	assert.Equal(t, []int64{int64(rows), 2}, []int64{w[smShape], w[smStride]})
	assert.Equal(t, []int64{2, 1, 1, 100, 0, 200, 5, 0, 1, 0, 7}, w[smCols:smShape])
	assert.Greater(t, smGroups(w), int64(1<<16), "more row groups than the grid's 65536 blocks (tileGrid)")
}

// TestPlanSoftmaxSplitsRank checks that row dimensions beyond ewMaxRank
// are looped over on the host, each launch with its inputs' offsets and
// the offset of its first row in Out, for a gradient whose G is
// contiguous and whose Y is not (the dimensions merge in neither).
func TestPlanSoftmaxSplitsRank(t *testing.T) {
	shape := []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3}
	strides := make([]int, len(shape))
	for i, acc := len(shape)-1, 1; i >= 0; i-- {
		strides[i] = 2 * acc
		acc *= 2 * shape[i]
	}
	k := &device.SoftmaxKernel{In: device.View{DType: device.Float32, Shape: shape, Strides: strides},
		Out: device.View{DType: device.Float32, Shape: shape, Strides: device.ContiguousStrides(shape), Offset: 1}}
	g := k.Out
	g.Offset = 9
	ls := planRows([]device.View{k.In, g}, k.Out, 0, []uint64{1, 2}, 3)
	require.Len(t, ls, 4, "two leading row dimensions looped over")
	for i, w := range ls {
		assert.Equal(t, int64(256), w[smRows])
		assert.Equal(t, int64(ewMaxRank), w[smRank])
		assert.Equal(t, int64(i/2*strides[0]+i%2*strides[1]), w[smInOff], "launch %d", i)
		assert.Equal(t, int64(9+i*256*3), w[smInOff+1], "launch %d", i)
		assert.Equal(t, int64(1+i*256*3), w[smOutOff], "launch %d", i)
		assert.Equal(t, int64(strides[2]), w[smStride], "Y's outermost stride in the launch")
		assert.Equal(t, int64(3*128), w[smStride+ewMaxRank], "G's")
	}
}

// TestSoftmaxKernelCompilesToPTX compiles the row kernel modules (softmax
// and normalization) with clang-19 for sm_80 and sm_90 and checks every
// entry point, its parameter (the words planRows writes), its launch
// bounds (1024 threads, which caps the registers a thread) and that the
// row reductions are warp shuffles. It skips without clang-19 unless
// SHADERFLOW_REQUIRE_CLANG=1.
func TestSoftmaxKernelCompilesToPTX(t *testing.T) {
	clang := requireClang(t)
	dir := t.TempDir()
	for name, m := range map[string]struct {
		source  string
		entries []string
	}{
		"softmax":   {softmaxModuleSource(), []string{smEntry, smBackwardEntry}},
		"normalize": {normalizeModuleSource(), []string{nmEntry, nmBackwardEntry}},
	} {
		cu := filepath.Join(dir, name+".cu")
		require.NoError(t, os.WriteFile(cu, []byte(m.source), 0o644))
		for _, arch := range []string{"sm_80", "sm_90"} {
			out := filepath.Join(dir, name+arch+".ptx")
			cmd := exec.Command(clang, append(clangCUDAFlags(arch), "-o", out, cu)...)
			b, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s: %s", cmd, b)
			ptx, err := os.ReadFile(out)
			require.NoError(t, err)
			s := string(ptx)
			assert.Contains(t, s, ".target "+arch)
			for _, entry := range m.entries {
				assert.Contains(t, s, ".visible .entry "+entry+"(")
				assert.Contains(t, s, fmt.Sprintf(".param .align 8 .b8 %s_param_0[%d]", entry, 8*smWords))
				assert.Regexp(t, regexp.MustCompile(`\.entry `+entry+`\([^)]*\)\s*\.maxntid 1024, 1, 1`), s, "launch bounds")
			}
			assert.Contains(t, s, "shfl.sync.bfly.b32")
		}
	}
}
