//go:build cgo

package vulkan

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// specials are inputs for which x - x is NaN.
var specials = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1, -2, 0}

// checkSelfSub runs x - x over specials through the generated elementwise
// kernel (both operands one view) and checks it against IEEE.
func checkSelfSub(t *testing.T, d *Device) {
	x := upload(t, d, f32Bytes(specials))
	out := alloc(t, d, int64(4*len(specials)))
	var pb device.Builder
	in := pb.Input(0, device.Float32)
	pb.Output(pb.Binary(device.OpSub, in, in))
	shape := []int{len(specials)}
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: shape,
		Inputs: []device.View{device.Contiguous(x, device.Float32, 0, shape)}, Program: pb.P,
		Outputs: []device.View{device.Contiguous(out, device.Float32, 0, shape)}}))
	got := bytesF32(download(t, d, out, 4*len(specials)))
	for i, v := range specials {
		want := v - v
		assert.Equal(t, math.IsNaN(float64(want)), math.IsNaN(float64(got[i])), "%v - %v = %v", v, v, got[i])
	}
}

// TestFloatControlsEnabledWhereOffered checks that a device whose adapter
// has shaderSignedZeroInfNanPreserveFloat32 opens with the extension (with
// SHADERFLOW_VULKAN_VALIDATION=1 the layer checks the modules against it).
func TestFloatControlsEnabledWhereOffered(t *testing.T) {
	d := openDevice(t)
	assert.Equal(t, d.ad.preserveNaN, d.preserveNaN)
	t.Logf("%s: SignedZeroInfNanPreserve 32 %v", d.info.Name, d.preserveNaN)
	checkSelfSub(t, d)
}

// TestWithoutFloatControls opens a device as if it lacked
// shaderSignedZeroInfNanPreserveFloat32: the modules lose the declaration
// (the validation layer rejects it otherwise) and ops.wgsl's guards keep
// x - x NaN.
func TestWithoutFloatControls(t *testing.T) {
	noFloatControlsForTests = true
	d := openDevice(t)
	noFloatControlsForTests = false
	require.False(t, d.preserveNaN)
	checkSelfSub(t, d)
}

// TestSoftmaxWithoutFloatControls runs the row softmax's special values on a
// device without SignedZeroInfNanPreserve: the kernel classifies NaN and
// infinity by their bits, so its rows keep PyTorch's NaN rules without the
// execution mode.
func TestSoftmaxWithoutFloatControls(t *testing.T) {
	noFloatControlsForTests = true
	d := openDevice(t)
	noFloatControlsForTests = false
	require.False(t, d.preserveNaN)
	gputest.RunSoftmaxSpecials(t, d)
}

// TestNormalizeWithoutFloatControls runs the row normalization's special
// values on a device without SignedZeroInfNanPreserve: a row holding NaN or
// ±Inf is found by its bits, and the gradient's special values go through
// ops.wgsl's bit-tested arithmetic.
func TestNormalizeWithoutFloatControls(t *testing.T) {
	noFloatControlsForTests = true
	d := openDevice(t)
	noFloatControlsForTests = false
	require.False(t, d.preserveNaN)
	gputest.RunNormalizeSpecials(t, d)
}

// selfSubShader computes x - x with no guard.
const selfSubShader = `
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < params[0]) {
        out[g.x] = x[g.x] - x[g.x];
    }
}
`

// withFloatControls returns naga's module with what tools/spirv adds:
// the SignedZeroInfNanPreserve capability, SPV_KHR_float_controls and the
// 32-bit execution mode on its one entry point.
func withFloatControls(t *testing.T, w []uint32) []uint32 {
	const opExtension, opEntryPoint, opExecutionMode, opCapability = 10, 15, 16, 17
	lastCap, lastMode, entry := -1, -1, uint32(0)
	for i := 5; i < len(w); i += int(w[i] >> 16) {
		switch uint16(w[i]) {
		case opCapability:
			lastCap = i + int(w[i]>>16)
		case opEntryPoint:
			entry, lastMode = w[i+2], i+int(w[i]>>16)
		case opExecutionMode:
			lastMode = i + int(w[i]>>16)
		}
	}
	require.True(t, lastCap > 0 && lastMode > lastCap)
	ext := []uint32{7<<16 | opExtension}
	for _, s := range []string{"SPV_", "KHR_", "floa", "t_co", "ntro", "ls\x00\x00"} {
		ext = append(ext, uint32(s[0])|uint32(s[1])<<8|uint32(s[2])<<16|uint32(s[3])<<24)
	}
	out := append([]uint32(nil), w[:lastCap]...)
	out = append(out, 2<<16|opCapability, 4466)
	out = append(out, ext...)
	out = append(out, w[lastCap:lastMode]...)
	out = append(out, 4<<16|opExecutionMode, entry, 4461, 32)
	return append(out, w[lastMode:]...)
}

// TestDriverHonoursFloatControls runs an unguarded x - x with and without
// SignedZeroInfNanPreserve: with it the driver must give NaN for NaN and
// infinite x (lavapipe of Mesa 22.3 folds x - x to 0 without it). Skipped
// where the device lacks the mode or naga is not installed.
func TestDriverHonoursFloatControls(t *testing.T) {
	d := openDevice(t)
	if !d.preserveNaN {
		t.Skip("the device lacks shaderSignedZeroInfNanPreserveFloat32")
	}
	plain := compileTestShader(t, selfSubShader)
	n := len(specials)
	x := upload(t, d, f32Bytes(specials))
	run := func(words []uint32, name string) []float32 {
		p, err := d.newPipeline(words, "main")
		require.NoError(t, err)
		out := alloc(t, d, int64(4*n))
		l := &gpu.Launch{Kind: shaders.Kind(name), Entry: "main", Params: []uint32{uint32(n)}, Workgroups: 1,
			Bindings: []gpu.Binding{{Buf: x, Size: x.Bytes()}, {Buf: out, Size: out.Bytes()}}}
		d.mu.Lock()
		d.pipelines.add(l, p)
		err = d.record(l, out)
		d.mu.Unlock()
		require.NoError(t, err)
		return bytesF32(download(t, d, out, 4*n))
	}
	t.Logf("without SignedZeroInfNanPreserve, x - x of %v: %v", specials, run(plain, "self-sub-plain"))
	got := run(withFloatControls(t, plain), "self-sub-preserve")
	for i, v := range specials {
		assert.Equal(t, math.IsNaN(float64(v-v)), math.IsNaN(float64(got[i])), "%v - %v = %v", v, v, got[i])
	}
}
