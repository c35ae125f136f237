package device

import "math"

// Op is one instruction of an elementwise Program. Everything else about an
// op (its name, arity, types, cost, scalar semantics and GPU function) is its
// row of the op table below, from which validation, the CPU interpreter and
// the GPU code generators derive what they do.
type Op uint8

// The program instructions. Unless noted, unary and binary ops work on
// Float32 registers; Neg, Abs, Sign, Add, Sub, Mul, Max, Min and the
// comparisons also work on Int32 (Div on Int32 is floor division). Max and Min
// propagate NaN. Comparisons yield Bool.
const (
	OpInput       Op = iota // load element of input Index (converted to its compute type)
	OpConst                 // the constant Imm
	OpIndex                 // the linear output position, Int32
	OpRandUniform           // uniform [0,1) from (Seed, linear output position), Float32
	OpRandNormal            // standard normal from (Seed, linear output position), Float32

	OpNeg
	OpAbs
	OpSign
	OpExp
	OpLog
	OpSqrt
	OpRsqrt
	OpRecip
	OpSin
	OpCos
	OpTanh
	OpSigmoid
	OpRelu
	OpErf
	OpGeluErf
	OpGeluTanh
	OpGeluErfGrad  // the derivative of GeluErf: Phi(x) + x phi(x)
	OpGeluTanhGrad // the derivative of GeluTanh
	OpSilu
	OpSoftplus
	OpRoundF16  // round to the nearest float16 value as a store does (Float32ToFloat16), kept in the register's type (from Float64 once: Float64ToFloat16)
	OpRoundBF16 // round to the nearest bfloat16 value as a store does (Float32ToBFloat16), kept in the register's type (from Float64 once)
	OpFloor
	OpCeil
	OpLog1p // log(1+x), accurate near 0
	OpExpm1 // e^x-1, accurate near 0
	OpLog2
	OpSinh
	OpCosh
	OpAtan
	OpAsin
	OpAcos
	OpRound // to the nearest integer, halves to even
	OpTrunc // toward zero
	OpIsNaN // Bool
	OpNot   // Bool -> Bool
	OpCast  // convert Args[0] to Type: float->int as FloatToInt32; number->bool is x != 0 (NaN is true); bool->number is 0 or 1

	OpAdd
	OpSub
	OpMul
	OpDiv
	OpPow
	OpMax
	OpMin
	OpAtan2 // atan2(Args[0], Args[1]), the angle of the point (x=Args[1], y=Args[0])
	OpFmod  // Args[0] - trunc(Args[0]/Args[1])*Args[1] computed exactly (C fmod): the sign of Args[0]
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpAnd // Bool
	OpOr  // Bool

	OpWhere // Args[0] (Bool) ? Args[1] : Args[2]
	OpFma   // Args[0]*Args[1] + Args[2], Float32

	// NumOps is one more than the largest op: the length of tables indexed
	// by Op.
	NumOps
)

// opTable is the op table: one row per op, the single place an op's identity
// is written. A test checks that every op has a row.
var opTable = [NumOps]OpInfo{
	OpInput:       {Name: "input", Types: TypesInput},
	OpConst:       {Name: "const", Types: TypesConst},
	OpIndex:       {Name: "index", Types: TypesIndex},
	OpRandUniform: {Name: "rand_uniform", Types: TypesRandom, Cost: Expensive},
	OpRandNormal:  {Name: "rand_normal", Types: TypesRandom, Cost: Expensive},

	OpNeg: {Name: "neg", Arity: 1, Types: TypesNumeric, GPU: "op_neg", GPUInt: "op_neg_i",
		Float: func(x float32) float32 { return -x }, Int: func(x int32) int32 { return -x }},
	OpAbs: {Name: "abs", Arity: 1, Types: TypesNumeric, GPU: "op_abs", GPUInt: "op_abs_i",
		Float: func(x float32) float32 { return float32(math.Abs(float64(x))) }, Int: absI32},
	OpSign: {Name: "sign", Arity: 1, Types: TypesNumeric, GPU: "op_sign", GPUInt: "op_sign_i",
		Float: signOf[float32], Int: signI32},
	OpExp:   {Name: "exp", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_exp", Float: func(x float32) float32 { return float32(math.Exp(float64(x))) }},
	OpLog:   {Name: "log", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_log", Float: func(x float32) float32 { return float32(math.Log(float64(x))) }},
	OpSqrt:  {Name: "sqrt", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_sqrt", Float: func(x float32) float32 { return float32(math.Sqrt(float64(x))) }},
	OpRsqrt: {Name: "rsqrt", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_rsqrt", Float: f64(rsqrt64)},
	OpRecip: {Name: "recip", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_recip",
		Float: func(x float32) float32 { return 1 / x }},
	OpSin:     {Name: "sin", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_sin", Float: func(x float32) float32 { return float32(math.Sin(float64(x))) }},
	OpCos:     {Name: "cos", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_cos", Float: func(x float32) float32 { return float32(math.Cos(float64(x))) }},
	OpTanh:    {Name: "tanh", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_tanh", Float: func(x float32) float32 { return float32(math.Tanh(float64(x))) }},
	OpSigmoid: {Name: "sigmoid", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_sigmoid", Float: f64(Sigmoid64)},
	OpRelu:    {Name: "relu", Arity: 1, Types: TypesFloat, GPU: "op_relu", Float: reluOf[float32]},
	OpErf:     {Name: "erf", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_erf", Float: func(x float32) float32 { return float32(math.Erf(float64(x))) }},
	OpGeluErf: {Name: "gelu_erf", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_gelu_erf",
		Float: f64(geluErf64)},
	OpGeluTanh: {Name: "gelu_tanh", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_gelu_tanh",
		Float: f64(geluTanh64)},
	OpGeluErfGrad: {Name: "gelu_erf_grad", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_gelu_erf_grad",
		Float: f64(geluErfGrad64)},
	OpGeluTanhGrad: {Name: "gelu_tanh_grad", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_gelu_tanh_grad",
		Float: f64(geluTanhGrad64)},
	OpSilu: {Name: "silu", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_silu",
		Float: f64(func(x float64) float64 { return x * Sigmoid64(x) })},
	OpSoftplus: {Name: "softplus", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_softplus",
		Float: f64(softplus64)},
	OpRoundF16: {Name: "round_f16", Arity: 1, Types: TypesFloat, GPU: "op_round_f16",
		Float: func(x float32) float32 { return Float16ToFloat32(Float32ToFloat16(x)) }},
	OpRoundBF16: {Name: "round_bf16", Arity: 1, Types: TypesFloat, GPU: "op_round_bf16",
		Float: func(x float32) float32 { return BFloat16ToFloat32(Float32ToBFloat16(x)) }},
	OpFloor: {Name: "floor", Arity: 1, Types: TypesFloat, GPU: "op_floor", Float: func(x float32) float32 { return float32(math.Floor(float64(x))) }},
	OpCeil:  {Name: "ceil", Arity: 1, Types: TypesFloat, GPU: "op_ceil", Float: func(x float32) float32 { return float32(math.Ceil(float64(x))) }},
	OpLog1p: {Name: "log1p", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_log1p", Float: f64(math.Log1p)},
	OpExpm1: {Name: "expm1", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_expm1", Float: f64(math.Expm1)},
	OpLog2:  {Name: "log2", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_log2", Float: f64(math.Log2)},
	OpSinh:  {Name: "sinh", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_sinh", Float: f64(math.Sinh)},
	OpCosh:  {Name: "cosh", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_cosh", Float: f64(math.Cosh)},
	OpAtan:  {Name: "atan", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_atan", Float: f64(math.Atan)},
	OpAsin:  {Name: "asin", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_asin", Float: f64(math.Asin)},
	OpAcos:  {Name: "acos", Arity: 1, Types: TypesFloat, Cost: Expensive, GPU: "op_acos", Float: f64(math.Acos)},
	OpRound: {Name: "round", Arity: 1, Types: TypesFloat, GPU: "op_round", Float: f64(math.RoundToEven)},
	OpTrunc: {Name: "trunc", Arity: 1, Types: TypesFloat, GPU: "op_trunc", Float: f64(math.Trunc)},
	OpIsNaN: {Name: "is_nan", Arity: 1, Types: TypesTest},
	OpNot:   {Name: "not", Arity: 1, Types: TypesLogic},
	OpCast:  {Name: "cast", Arity: 1, Types: TypesCast},

	OpAdd: {Name: "add", Arity: 2, Types: TypesNumeric, GPU: "op_add",
		Float2: func(a, b float32) float32 { return a + b }, Int2: func(a, b int32) int32 { return a + b }},
	OpSub: {Name: "sub", Arity: 2, Types: TypesNumeric, GPU: "op_sub",
		Float2: func(a, b float32) float32 { return a - b }, Int2: func(a, b int32) int32 { return a - b }},
	OpMul: {Name: "mul", Arity: 2, Types: TypesNumeric, GPU: "op_mul",
		Float2: func(a, b float32) float32 { return a * b }, Int2: func(a, b int32) int32 { return a * b }},
	OpDiv: {Name: "div", Arity: 2, Types: TypesNumeric, Cost: Expensive, GPU: "op_div", GPUInt: "op_div_i",
		Float2: func(a, b float32) float32 { return a / b }, Int2: floorDivI32},
	OpPow: {Name: "pow", Arity: 2, Types: TypesFloat, Cost: Expensive, GPU: "op_pow",
		Float2: func(a, b float32) float32 { return float32(math.Pow(float64(a), float64(b))) }},
	OpMax: {Name: "max", Arity: 2, Types: TypesNumeric, GPU: "op_max", Float2: maxOf[float32], Int2: maxI32},
	OpMin: {Name: "min", Arity: 2, Types: TypesNumeric, GPU: "op_min", Float2: minOf[float32], Int2: minI32},
	OpAtan2: {Name: "atan2", Arity: 2, Types: TypesFloat, Cost: Expensive, GPU: "op_atan2",
		Float2: func(y, x float32) float32 { return float32(math.Atan2(float64(y), float64(x))) }},
	OpFmod: {Name: "fmod", Arity: 2, Types: TypesFloat, Cost: Expensive, GPU: "op_fmod",
		Float2: func(a, b float32) float32 { return float32(math.Mod(float64(a), float64(b))) }},
	OpEq:  {Name: "eq", Arity: 2, Types: TypesCompare},
	OpNe:  {Name: "ne", Arity: 2, Types: TypesCompare},
	OpLt:  {Name: "lt", Arity: 2, Types: TypesCompare},
	OpLe:  {Name: "le", Arity: 2, Types: TypesCompare},
	OpGt:  {Name: "gt", Arity: 2, Types: TypesCompare},
	OpGe:  {Name: "ge", Arity: 2, Types: TypesCompare},
	OpAnd: {Name: "and", Arity: 2, Types: TypesLogic},
	OpOr:  {Name: "or", Arity: 2, Types: TypesLogic},

	OpWhere: {Name: "where", Arity: 3, Types: TypesSelect},
	OpFma:   {Name: "fma", Arity: 3, Types: TypesFloat},
}
