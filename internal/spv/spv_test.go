package spv

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// base parses a kind's precompiled module.
func base(t *testing.T, k shaders.Kind) *Base {
	t.Helper()
	b, err := shaders.SPIRV(k)
	require.NoError(t, err)
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	m, err := Parse(w)
	require.NoError(t, err)
	return m
}

// validate runs spirv-val --target-env vulkan1.1 on a module, or skips the
// test when spirv-val is not installed.
func validate(t *testing.T, name string, words []uint32) {
	t.Helper()
	val, err := exec.LookPath("spirv-val")
	if err != nil {
		t.Skip("spirv-val (package spirv-tools) is not installed: emitted modules cannot be validated")
	}
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	p := filepath.Join(t.TempDir(), name+".spv")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	out, err := exec.Command(val, "--target-env", "vulkan1.1", p).CombinedOutput()
	require.NoError(t, err, "%s: %s", name, out)
}

// everyOp builds a program that uses every op on every register type it
// accepts, loading inputs of the dtypes ins (compute types f32, f16, bf16,
// i32, bool in order) and returning a register of each compute type
// (f32, i32, bool).
func everyOp(first int) (pb device.Builder, f, i, bl device.Reg) {
	x := pb.Input(first, device.Float32)
	h := pb.Input(first+1, device.Float32)
	bf := pb.Input(first+2, device.Float32)
	n := pb.Input(first+3, device.Int32)
	c := pb.Input(first+4, device.Bool)
	f = pb.Binary(device.OpAdd, pb.Binary(device.OpMul, x, h), bf)
	for _, op := range device.Ops() {
		switch {
		case op.IsArith(1):
			f = pb.Unary(op, f)
		case op.IsArith(2):
			f = pb.Binary(op, f, pb.Const(0.5, device.Float32))
		}
	}
	f = pb.Fma(f, x, pb.Rand(7, false))
	f = pb.Binary(device.OpAdd, f, pb.Rand(9, true))
	i = pb.Binary(device.OpAdd, n, pb.Index())
	for _, op := range []device.Op{device.OpNeg, device.OpAbs, device.OpSign} {
		i = pb.Unary(op, i)
	}
	for _, op := range []device.Op{device.OpAdd, device.OpSub, device.OpMul, device.OpDiv, device.OpMax, device.OpMin} {
		i = pb.Binary(op, i, pb.Const(3, device.Int32))
	}
	bl = pb.Unary(device.OpIsNaN, f)
	for op := device.OpEq; op <= device.OpGe; op++ {
		bl = pb.Binary(device.OpAnd, bl, pb.Binary(op, f, x))
		bl = pb.Binary(device.OpOr, bl, pb.Binary(op, i, n))
	}
	bl = pb.Unary(device.OpNot, pb.Binary(device.OpOr, bl, pb.Binary(device.OpAnd, c, pb.Const(1, device.Bool))))
	// every cast between the three register types
	fi := pb.Cast(f, device.Int32)
	fb := pb.Cast(f, device.Bool)
	f = pb.Binary(device.OpAdd, pb.Cast(fi, device.Float32), pb.Cast(fb, device.Float32))
	i = pb.Binary(device.OpAdd, i, pb.Cast(pb.Cast(i, device.Bool), device.Int32))
	bl = pb.Binary(device.OpOr, bl, pb.Cast(pb.Cast(bl, device.Int32), device.Bool))
	f = pb.Where(bl, f, pb.Cast(i, device.Float32))
	i = pb.Where(bl, i, fi)
	bl = pb.Where(fb, bl, c)
	return pb, f, i, bl
}

// fakeBuf is a device.Buffer of a given size.
type fakeBuf struct{ n int64 }

func (b *fakeBuf) Bytes() int64 { return b.n }

var target = gpu.Target{MaxBindings: shaders.DataBindings, MaxBindingBytes: 1 << 30, BindingAlign: 256, MaxWorkgroups: 65535}

// views returns views of every dtype over shape, in separate buffers; with
// strided set they are transposed (not contiguous).
func views(shape []int, strided bool, dts ...device.DType) []device.View {
	var vs []device.View
	for _, dt := range dts {
		v := device.Contiguous(&fakeBuf{1 << 16}, dt, 3, shape)
		if strided && len(shape) == 2 {
			v.Strides = []int{1, shape[0]}
		}
		vs = append(vs, v)
	}
	return vs
}

var inDTypes = []device.DType{device.Float32, device.Float16, device.BFloat16, device.Int32, device.Bool}

// TestElementwiseEveryOpValidates splices a program using every op, loading
// every dtype through contiguous and strided views, storing every dtype, and
// validates the module.
func TestElementwiseEveryOpValidates(t *testing.T) {
	b := base(t, shaders.Elementwise)
	for _, strided := range []bool{false, true} {
		pb, f, i, bl := everyOp(0)
		for _, r := range []device.Reg{f, f, f, i, bl} {
			pb.Output(r)
		}
		seen := map[device.Op]bool{}
		for _, in := range pb.P.Code {
			seen[in.Op] = true
		}
		for op := device.OpInput; op <= device.OpFma; op++ {
			assert.True(t, seen[op], "the test program lacks %s", op)
		}
		shape := []int{5, 7}
		k := &device.ElementwiseKernel{Shape: shape, Inputs: views(shape, strided, inDTypes...), Program: pb.P,
			Outputs: views(shape, false, inDTypes...)}
		l, err := gpu.EncodeElementwise(k, target)
		require.NoError(t, err)
		w, err := b.Splice(l.Hooks)
		require.NoError(t, err)
		validate(t, "elementwise", w)
	}
}

// hook builds a hook directly (the kinds' encoders are tested in package
// gpu): views of the given dtypes, inputs then outputs.
func hook(name string, p device.Program, acc bool, nin int, dts ...device.DType) gpu.Hook {
	h := gpu.Hook{Name: name, Program: p, Header: 1, Acc: acc, NIn: nin, NOut: len(dts) - nin, Rank: 2, Imm: 100}
	for i, dt := range dts {
		h.Views = append(h.Views, gpu.HookView{Desc: 10 + 5*i, Binding: 1 + i, DType: dt, Contiguous: i%2 == 0})
	}
	return h
}

// TestHooksOfEveryKindValidate splices every hook kind, with accumulators
// of each type, into the kinds that call them.
func TestHooksOfEveryKindValidate(t *testing.T) {
	pro, f, _, _ := everyOp(0)
	pro.Output(f)
	for _, accT := range []device.DType{device.Float32, device.Int32} {
		var epi device.Builder
		a := epi.Input(0, accT)
		f2, i2, bl2 := func() (device.Reg, device.Reg, device.Reg) {
			pb, f, i, bl := everyOp(1)
			epi.P.Code = append(epi.P.Code, offsetRegs(pb.P.Code, 1)...)
			return f + 1, i + 1, bl + 1
		}()
		if accT == device.Int32 {
			i2 = epi.Binary(device.OpAdd, i2, a)
		} else {
			f2 = epi.Binary(device.OpAdd, f2, a)
		}
		for _, r := range []device.Reg{f2, f2, f2, i2, bl2} {
			epi.Output(r)
		}
		dts := append(append([]device.DType{}, inDTypes...), inDTypes...)
		require.NoError(t, pro.P.Validate(inDTypes))
		require.NoError(t, epi.P.Validate(append([]device.DType{accT}, inDTypes...)))
		hooks := []gpu.Hook{hook(gpu.HookReducePrologue, pro.P, false, 5, inDTypes...), hook(gpu.HookReduceEpilogue, epi.P, true, 5, dts...)}
		hooks[1].Header = 2
		w, err := base(t, shaders.Reduce).Splice(hooks)
		require.NoError(t, err)
		validate(t, "reduce", w)
		if accT != device.Float32 {
			continue
		}
		for _, k := range []shaders.Kind{shaders.MatMul, shaders.Conv} {
			w, err := base(t, k).Splice([]gpu.Hook{hook(gpu.HookEpilogue, epi.P, true, 5, dts...)})
			require.NoError(t, err)
			validate(t, string(k), w)
		}
	}
}

// offsetRegs shifts the register arguments of code built at register 0 so
// that it can follow k instructions.
func offsetRegs(code []device.Instr, k int) []device.Instr {
	out := make([]device.Instr, len(code))
	for i, in := range code {
		for a := 0; a < in.Op.Arity(); a++ {
			in.Args[a] += device.Reg(k)
		}
		out[i] = in
	}
	return out
}

// TestSpliceLeavesBaseAndIsDeterministic checks that splicing does not
// change the base module and gives the same words twice, that hooks not
// given keep their placeholder, and that the id bound grows.
func TestSpliceLeavesBaseAndIsDeterministic(t *testing.T) {
	b := base(t, shaders.Elementwise)
	before := append([]uint32(nil), b.words...)
	var pb device.Builder
	pb.Output(pb.Binary(device.OpAdd, pb.Input(0, device.Float32), pb.Input(1, device.Float32)))
	h := hook(gpu.HookElementwise, pb.P, false, 2, device.Float32, device.Float32, device.Float32)
	w1, err := b.Splice([]gpu.Hook{h})
	require.NoError(t, err)
	w2, err := b.Splice([]gpu.Hook{h})
	require.NoError(t, err)
	assert.Equal(t, w1, w2)
	assert.Equal(t, before, b.words)
	assert.Greater(t, w1[3], b.Bound())
	w0, err := b.Splice(nil)
	require.NoError(t, err)
	assert.Equal(t, b.words, w0)
	validate(t, "add", w1)
}

func TestSpliceErrors(t *testing.T) {
	b := base(t, shaders.Elementwise)
	var pb device.Builder
	pb.Output(pb.Input(0, device.Float32))
	_, err := b.Splice([]gpu.Hook{hook("no_such_hook", pb.P, false, 1, device.Float32, device.Float32)})
	assert.ErrorContains(t, err, "unknown hook")
	_, err = b.Splice([]gpu.Hook{hook(gpu.HookEpilogue, pb.P, false, 1, device.Float32, device.Float32), hook(gpu.HookEpilogue, pb.P, false, 1, device.Float32, device.Float32)})
	assert.ErrorContains(t, err, "given twice")
	_, err = Parse([]uint32{1, 2, 3})
	assert.Error(t, err)
	// a module without debug names
	var stripped []uint32
	w := b.words
	stripped = append(stripped, w[:headerWords]...)
	for i := headerWords; i < len(w); i += int(w[i] >> 16) {
		if uint16(w[i]) != opName {
			stripped = append(stripped, w[i:i+int(w[i]>>16)]...)
		}
	}
	_, err = Parse(stripped)
	assert.ErrorContains(t, err, "names no function")
}

// TestBaseFindsHelpers checks that every function generated code calls is
// present in every kind that has hooks.
func TestBaseFindsHelpers(t *testing.T) {
	need := []string{gpu.FnViewElem, gpu.FnF16ToF32, gpu.FnF32ToF16, gpu.FnF32ToBF16, gpu.FnF32ToI32, gpu.FnIsNaN, gpu.FnRandUniform, gpu.FnRandNormal}
	for _, op := range device.Ops() {
		for _, t := range []device.DType{device.Float32, device.Int32} {
			if f := gpu.OpFunction(op, t); f != "" {
				need = append(need, f)
			}
		}
	}
	for _, k := range []shaders.Kind{shaders.Elementwise, shaders.Reduce, shaders.MatMul, shaders.Conv} {
		fs := base(t, k).Functions()
		for _, n := range need {
			assert.Contains(t, fs, n, "kind %s", k)
		}
	}
}

// TestSpliceAddsGLSLImport covers a base module without a GLSL.std.450
// import: Splice declares one for the extended instructions it emits.
func TestSpliceAddsGLSLImport(t *testing.T) {
	b := base(t, shaders.Elementwise)
	nb := *b
	nb.glsl = 0 // pretend the module had none (a second import is valid)
	var pb device.Builder
	x := pb.Input(0, device.Float32)
	pb.Output(pb.Fma(x, x, x))
	h := hook(gpu.HookElementwise, pb.P, false, 1, device.Float32, device.Float32)
	w, err := nb.Splice([]gpu.Hook{h})
	require.NoError(t, err)
	imports := 0
	for i := headerWords; i < len(w); i += int(w[i] >> 16) {
		if uint16(w[i]) == opExtInstImport {
			imports++
		}
	}
	assert.Equal(t, 2, imports)
	validate(t, "glsl-import", w)
}

// TestByteViewsValidate splices loads of Uint8 and Int8 views (zero- and
// sign-extended to i32) and stores of both (the low byte), through
// contiguous and strided views, and validates the module.
func TestByteViewsValidate(t *testing.T) {
	b := base(t, shaders.Elementwise)
	for _, strided := range []bool{false, true} {
		var pb device.Builder
		u, s := pb.Input(0, device.Uint8), pb.Input(1, device.Int8)
		sum := pb.Binary(device.OpAdd, u, s)
		pb.Output(sum)
		pb.Output(sum)
		shape := []int{5, 7}
		k := &device.ElementwiseKernel{Shape: shape, Inputs: views(shape, strided, device.Uint8, device.Int8), Program: pb.P,
			Outputs: views(shape, false, device.Int8, device.Uint8)}
		l, err := gpu.EncodeElementwise(k, target)
		require.NoError(t, err)
		w, err := b.Splice(l.Hooks)
		require.NoError(t, err)
		validate(t, "bytes", w)
	}
}
