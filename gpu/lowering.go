package gpu

import "github.com/shaderflow/shaderflow/tensor/device"

// The lowering decisions that every hook generator shares (WGSL here, SPIR-V
// in gpu/vulkan/internal/spv): which ops call a function of ops.wgsl, which
// are plain operators, and the names of the shader helpers generated code
// calls. Both generators implement device's scalar semantics the same way
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

// unaryFloat names the ops.wgsl function of each float unary op.
var unaryFloat = map[device.Op]string{
	device.OpNeg: "op_neg", device.OpAbs: "op_abs", device.OpSign: "op_sign", device.OpExp: "op_exp",
	device.OpLog: "op_log", device.OpSqrt: "op_sqrt", device.OpRsqrt: "op_rsqrt", device.OpRecip: "op_recip",
	device.OpSin: "op_sin", device.OpCos: "op_cos", device.OpTanh: "op_tanh", device.OpSigmoid: "op_sigmoid",
	device.OpRelu: "op_relu", device.OpErf: "op_erf", device.OpGeluErf: "op_gelu_erf",
	device.OpGeluTanh: "op_gelu_tanh", device.OpSilu: "op_silu",
	device.OpRoundF16: "op_round_f16", device.OpRoundBF16: "op_round_bf16", device.OpFloor: "op_floor", device.OpCeil: "op_ceil",
}

var binaryFloat = map[device.Op]string{
	device.OpAdd: "op_add", device.OpSub: "op_sub", device.OpMul: "op_mul", device.OpDiv: "op_div",
	device.OpPow: "op_pow", device.OpMax: "op_max", device.OpMin: "op_min",
}

var unaryInt = map[device.Op]string{device.OpNeg: "op_neg_i", device.OpAbs: "op_abs_i", device.OpSign: "op_sign_i"}

var binaryIntFn = map[device.Op]string{device.OpDiv: "op_div_i"}

// OpFunction returns the name of the ops.wgsl function that implements a
// unary or binary arithmetic op on arguments of type arg (Float32 or Int32),
// or "" when generated code uses an operator or builtin instead: int32 add,
// sub, mul (wrapping), max and min, comparisons, logic, casts, where and fma.
func OpFunction(op device.Op, arg device.DType) string {
	switch {
	case op.IsComparison() || arg == device.Bool:
		return ""
	case op.Arity() == 2 && arg == device.Int32:
		return binaryIntFn[op]
	case op.Arity() == 2:
		return binaryFloat[op]
	case op.Arity() == 1 && arg == device.Int32:
		return unaryInt[op]
	case op.Arity() == 1:
		return unaryFloat[op]
	}
	return ""
}

// Layout facts of the params that generated hooks use (see doc.go).
const (
	BlockShapeWord = pbShape    // word offset of the space's shape from a program block's start
	ViewOffsetWord = vdOffset   // word offset of the element offset in a view descriptor
	InstrWords     = instrWords // words per bytecode instruction; the immediate is the last
)
