package tensor

import "fmt"

// gradOp identifies a differentiable front-end operation: what a gradNode
// records and what its backward rule is looked up by, so that a misspelt op
// fails to compile instead of meaning "no gradient rule" at Backward time.
type gradOp uint8

// The differentiable operations, each listed once. Zero is no operation, so
// a gradOp left unset is caught.
const (
	// Elementwise arithmetic between tensors.
	opAdd gradOp = iota + 1
	opSub
	opMul
	opDiv
	opPow
	opMaximum
	opMinimum
	// Elementwise arithmetic with a constant.
	opAddScalar
	opSubScalar
	opRSubScalar
	opMulScalar
	opDivScalar
	opPowScalar
	// Elementwise functions of one tensor.
	opNeg
	opAbs
	opSign
	opExp
	opLog
	opSqrt
	opRsqrt
	opReciprocal
	opSin
	opCos
	opTanh
	opSigmoid
	opRelu
	opGelu
	opGeluTanh
	opSilu
	opSoftplus
	opErf
	opFloor
	opCeil
	opLog1p
	opExpm1
	opLog2
	opSinh
	opCosh
	opAtan
	opAsin
	opAcos
	opRound
	opTrunc
	opAtan2
	opFmod
	opClamp
	opWhere
	opFma
	opCast
	opContiguous
	// Reductions and normalizations along axes.
	opSum
	opProd
	opMax
	opMin
	opSoftmax
	opLogSoftmax
	// Views and index operations.
	opReshape
	opSqueeze
	opUnsqueeze
	opExpand
	opPermute
	opSlice
	opGather
	opScatterAdd
	opCat
	opFlip
	// Layers.
	opMatMul
	opConv1d
	opConv2d
	opConv3d
	opMaxPool2d
	opAvgPool2d
	opAdaptiveAvgPool2d
	opMaxPool1d
	opMaxPool3d
	opAvgPool1d
	opAvgPool3d
	opConvTranspose1d
	opConvTranspose2d
	opConvTranspose3d

	numGradOps // one past the last operation
)

// gradOpNames spells each operation as its usage errors and Backward's
// errors print it: the name of its front-end method.
var gradOpNames = [numGradOps]string{
	opAdd: "Add", opSub: "Sub", opMul: "Mul", opDiv: "Div", opPow: "Pow",
	opMaximum: "Maximum", opMinimum: "Minimum",
	opAddScalar: "AddScalar", opSubScalar: "SubScalar", opRSubScalar: "RSubScalar",
	opMulScalar: "MulScalar", opDivScalar: "DivScalar", opPowScalar: "PowScalar",
	opNeg: "Neg", opAbs: "Abs", opSign: "Sign", opExp: "Exp", opLog: "Log",
	opSqrt: "Sqrt", opRsqrt: "Rsqrt", opReciprocal: "Reciprocal", opSin: "Sin",
	opCos: "Cos", opTanh: "Tanh", opSigmoid: "Sigmoid", opRelu: "Relu",
	opGelu: "Gelu", opGeluTanh: "GeluTanh", opSilu: "Silu", opSoftplus: "Softplus",
	opErf: "Erf", opFloor: "Floor", opCeil: "Ceil", opClamp: "Clamp",
	opLog1p: "Log1p", opExpm1: "Expm1", opLog2: "Log2", opSinh: "Sinh", opCosh: "Cosh",
	opAtan: "Atan", opAsin: "Asin", opAcos: "Acos", opRound: "Round", opTrunc: "Trunc",
	opAtan2: "Atan2", opFmod: "Fmod",
	opWhere: "Where", opFma: "Fma", opCast: "Cast", opContiguous: "Contiguous",
	opSum: "Sum", opProd: "Prod", opMax: "Max", opMin: "Min",
	opSoftmax: "Softmax", opLogSoftmax: "LogSoftmax",
	opReshape: "Reshape", opSqueeze: "Squeeze", opUnsqueeze: "Unsqueeze",
	opExpand: "Expand", opPermute: "Permute", opSlice: "Slice",
	opGather: "Gather", opScatterAdd: "ScatterAdd", opCat: "Cat", opFlip: "Flip",
	opMatMul: "MatMul", opConv1d: "Conv1d", opConv2d: "Conv2d", opConv3d: "Conv3d",
	opMaxPool2d: "MaxPool2d", opAvgPool2d: "AvgPool2d",
	opAdaptiveAvgPool2d: "AdaptiveAvgPool2d", opMaxPool1d: "MaxPool1d", opMaxPool3d: "MaxPool3d",
	opAvgPool1d: "AvgPool1d", opAvgPool3d: "AvgPool3d",
	opConvTranspose1d: "ConvTranspose1d", opConvTranspose2d: "ConvTranspose2d", opConvTranspose3d: "ConvTranspose3d",
}

// String returns the operation's front-end name.
func (o gradOp) String() string {
	if o > 0 && o < numGradOps && gradOpNames[o] != "" {
		return gradOpNames[o]
	}
	return fmt.Sprintf("gradOp(%d)", uint8(o))
}

// gradRules holds each operation's backward rule, set by grad_rules.go's
// init; TestGradOpTable checks that none is missing.
var gradRules [numGradOps]backwardFn

// rule returns o's backward rule, or nil for a value outside the table.
func (o gradOp) rule() backwardFn {
	if o >= numGradOps {
		return nil
	}
	return gradRules[o]
}
