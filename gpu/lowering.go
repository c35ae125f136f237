package gpu

import "github.com/shaderflow/shaderflow/tensor/device"

// The lowering decisions that every hook generator shares (WGSL here, SPIR-V
// in internal/spv): which ops call a function of ops.wgsl (named
// by device's op table), which are plain operators, and the names of the
// shader helpers generated code calls. Both generators implement device's scalar semantics the same way
// because they call the same WGSL functions.

// Helper functions of common.wgsl and ops.wgsl that generated hooks call.
const (
	FnViewElem    = "view_elem"    // (d, shape, r, p: u32) -> u32: element of a strided view
	FnF16ToF32    = "f16_to_f32"   // (bits: u32) -> f32
	FnF32ToF16    = "f32_to_f16"   // (f32) -> u32 bits, round to nearest even
	FnF32ToBF16   = "f32_to_bf16"  // (f32) -> u32 bits, round to nearest even
	FnF32ToI32    = "f32_to_i32"   // device.FloatToInt32
	FnIsNaN       = "is_nan"       // (f32) -> bool, by bits (immune to fast-math folding)
	FnRandUniform = "rand_uniform" // (key, p: u32) -> f32
	FnRandNormal  = "rand_normal"  // (key, p: u32) -> f32
)

// OpFunction returns the name of the ops.wgsl function that implements an
// arithmetic op on arguments of type arg (Float32 or Int32): the GPU or
// GPUInt of the op's row in device's op table, or "" when generated code uses
// an operator or builtin instead (int32 add, sub, mul (wrapping), max and
// min, comparisons, logic, casts, where and fma).
func OpFunction(op device.Op, arg device.DType) string {
	switch r := op.Info(); arg {
	case device.Float32:
		return r.GPU
	case device.Int32:
		return r.GPUInt
	}
	return ""
}

// Layout facts of the params that generated hooks use (see doc.go).
const (
	BlockShapeWord = 0        // word offset of the space's shape from a program block's start
	ViewOffsetWord = vdOffset // word offset of the element offset in a view descriptor
)
