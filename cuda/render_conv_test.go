package cuda

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// testConvKernel is a validated 2-D grouped convolution in mode with an
// epilogue multiplying by scale, its operands over render_test.go's fake buffers.
func testConvKernel(mode device.ConvMode, scale float64, out device.DType) *device.ConvKernel {
	g := device.ConvGeometry{N: 2, C: 4, O: 6, Groups: 2, In: []int{5, 7}, Kernel: []int{3, 2}, Out: []int{2, 6},
		Stride: []int{2, 1}, Padding: []int{0, 0}, Dilation: []int{1, 1}}
	f32 := device.Float32
	x := device.Contiguous(fakeBuf(1<<20), f32, 3, []int{2, 4, 5, 7})
	w := device.Contiguous(fakeBuf(1<<20), f32, 0, []int{6, 2, 3, 2})
	y := device.Contiguous(fakeBuf(1<<20), f32, 0, []int{2, 6, 2, 6})
	var e device.Builder
	e.Output(e.Cast(e.Binary(device.OpMul, e.Input(0, f32), e.Const(scale, f32)), out))
	k := &device.ConvKernel{Mode: mode, Geom: g, A: x, B: w, Epilogue: e.P}
	switch mode {
	case device.ConvBackwardInput:
		k.A = y
	case device.ConvBackwardWeight:
		k.A, k.B = y, x
	}
	k.Outputs = []device.View{device.Contiguous(fakeBuf(1<<20), out, 1, k.ResultShape())}
	return k
}

func TestConvSignatures(t *testing.T) {
	f32 := device.Float32
	base := testConvKernel(device.ConvForward, 2, f32)
	require.NoError(t, base.Validate())
	other := testConvKernel(device.ConvForward, -3, f32)
	other.Geom.N, other.A.Shape[0], other.Outputs[0].Shape[0] = 1, 1, 1
	require.NoError(t, other.Validate())
	assert.Equal(t, cvSignature(base), cvSignature(other), "constants and sizes are launch words")
	assert.Equal(t, renderConv(base), renderConv(other))
	seen := map[string]bool{cvSignature(base): true}
	for _, k := range []*device.ConvKernel{
		testConvKernel(device.ConvBackwardInput, 2, f32),
		testConvKernel(device.ConvBackwardWeight, 2, f32),
		testConvKernel(device.ConvForward, 2, device.Float16),
	} {
		require.NoError(t, k.Validate())
		assert.False(t, seen[cvSignature(k)], "mode %d, output %s", k.Mode, k.Outputs[0].DType)
		seen[cvSignature(k)] = true
	}
	p := &device.PoolKernel{Op: device.PoolMax, Geom: base.Geom}
	q := *p
	q.Backward = true
	assert.NotEqual(t, plSignature(p), plSignature(&q))
}

func TestPlanConvWords(t *testing.T) {
	k := testConvKernel(device.ConvBackwardInput, 0.5, device.Float32)
	k.A.Strides = []int{1, 2, 12 * 6, 12} // dY transposed: channels inside images
	w, err := planConv(k, []uint64{100, 200, 300})
	require.NoError(t, err)
	s := cvParams(0, 1, 1)
	require.Len(t, w, s.words())
	want := map[string]int64{"n": 2 * 4 * 5 * 7, "N": 2, "C": 4, "O": 6, "cg": 2, "og": 3,
		"a": 100, "a_off": 0, "b": 200, "b_off": 0, "dst": 300, "dst_off": 1}
	for name, v := range want {
		assert.Equal(t, v, w[s.at(name)], name)
	}
	assert.Equal(t, []int64{1, 2, 72, 12, 0}, w[s.at("a_st"):s.at("a_st")+winViewRank])
	assert.Equal(t, []int64{5, 7, 0, 3, 2, 0, 2, 6, 0, 2, 1, 0, 0, 0, 0, 1, 1, 0}, w[s.at("g_in"):s.at("g_in")+18])
	assert.Equal(t, int64(0x3f000000), w[s.at("imm")], "the constant's float32 bits")
	k.Geom.N, k.A.Shape[0], k.Outputs[0].Shape[0] = 0, 0, 0
	w, err = planConv(k, []uint64{100, 200, 300})
	assert.NoError(t, err)
	assert.Nil(t, w, "an empty result needs no launch")
}

// TestConvPoolParamsMatchPTX compiles a generated convolution and pooling
// with clang-19 and checks that the kernels' parameter blocks are exactly
// the words the host fills.
func TestConvPoolParamsMatchPTX(t *testing.T) {
	clang := requireClang(t)
	k := testConvKernel(device.ConvForward, 2, device.Float32)
	pk := &device.PoolKernel{Op: device.PoolMax, Geom: device.ConvGeometry{N: 1, C: 1, O: 1, Groups: 1, In: []int{4}, Out: []int{2}}, Adaptive: true}
	for _, c := range []struct {
		src, entry string
		words      int
	}{
		{renderConv(k), cvEntry, cvParams(0, 1, 1).words()},
		{renderPool(pk), plEntry, plParams.words()},
	} {
		dir := t.TempDir()
		cu := filepath.Join(dir, c.entry+".cu")
		require.NoError(t, os.WriteFile(cu, []byte(c.src), 0o644))
		out := filepath.Join(dir, c.entry+".ptx")
		cmd := exec.Command(clang, append(clangCUDAFlags("sm_90"), "-o", out, cu)...)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", cmd, b)
		ptx, err := os.ReadFile(out)
		require.NoError(t, err)
		assert.Contains(t, string(ptx), fmt.Sprintf(".param .align 8 .b8 %s_param_0[%d]", c.entry, c.words*8))
	}
}
