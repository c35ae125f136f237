package tensor

// gradOpDef is a differentiable front-end operation: its name (the spelling
// its usage errors and Backward's errors print, the name of its front-end
// function) and its backward rule.
type gradOpDef struct {
	name     string
	backward backwardFn
}

// gradOp identifies a differentiable operation: what a gradNode records and
// what its rule is looked up by, so that a misspelt op fails to compile
// instead of meaning "no gradient rule" at Backward time. nil is no
// operation.
type gradOp = *gradOpDef

// gradOps lists every operation defined, in order, for TestGradOpTable.
var gradOps []gradOp

// defineGradOp defines an operation named name. An operation is declared
// once, as a package variable, and its rule set in an init function next to
// its front-end function (or in grad_rules.go); TestGradOpTable checks that
// every operation has one.
func defineGradOp(name string) gradOp {
	o := &gradOpDef{name: name}
	gradOps = append(gradOps, o)
	return o
}

// String returns the operation's front-end name.
func (o *gradOpDef) String() string {
	if o == nil {
		return "no operation"
	}
	return o.name
}

// rule returns o's backward rule (nil for none).
func (o *gradOpDef) rule() backwardFn {
	if o == nil {
		return nil
	}
	return o.backward
}

// The differentiable operations of the package's files; operations defined
// since (mathops.go's and later) are declared beside their functions.
var (
	// Elementwise arithmetic between tensors.
	opAdd     = defineGradOp("Add")
	opSub     = defineGradOp("Sub")
	opMul     = defineGradOp("Mul")
	opDiv     = defineGradOp("Div")
	opPow     = defineGradOp("Pow")
	opMaximum = defineGradOp("Maximum")
	opMinimum = defineGradOp("Minimum")
	// Elementwise arithmetic with a constant.
	opAddScalar  = defineGradOp("AddScalar")
	opSubScalar  = defineGradOp("SubScalar")
	opRSubScalar = defineGradOp("RSubScalar")
	opMulScalar  = defineGradOp("MulScalar")
	opDivScalar  = defineGradOp("DivScalar")
	opPowScalar  = defineGradOp("PowScalar")
	// Elementwise functions of one tensor.
	opNeg        = defineGradOp("Neg")
	opAbs        = defineGradOp("Abs")
	opSign       = defineGradOp("Sign")
	opExp        = defineGradOp("Exp")
	opLog        = defineGradOp("Log")
	opSqrt       = defineGradOp("Sqrt")
	opRsqrt      = defineGradOp("Rsqrt")
	opReciprocal = defineGradOp("Reciprocal")
	opSin        = defineGradOp("Sin")
	opCos        = defineGradOp("Cos")
	opTanh       = defineGradOp("Tanh")
	opSigmoid    = defineGradOp("Sigmoid")
	opRelu       = defineGradOp("Relu")
	opGelu       = defineGradOp("Gelu")
	opGeluTanh   = defineGradOp("GeluTanh")
	opSilu       = defineGradOp("Silu")
	opSoftplus   = defineGradOp("Softplus")
	opErf        = defineGradOp("Erf")
	opFloor      = defineGradOp("Floor")
	opCeil       = defineGradOp("Ceil")
	opClamp      = defineGradOp("Clamp")
	opWhere      = defineGradOp("Where")
	opFma        = defineGradOp("Fma")
	opCast       = defineGradOp("Cast")
	opContiguous = defineGradOp("Contiguous")
	// Reductions and normalizations along axes.
	opSum        = defineGradOp("Sum")
	opProd       = defineGradOp("Prod")
	opMax        = defineGradOp("Max")
	opMin        = defineGradOp("Min")
	opSoftmax    = defineGradOp("Softmax")
	opLogSoftmax = defineGradOp("LogSoftmax")
	opNormalize  = defineGradOp("LayerNorm")                 // the normalization step of LayerNorm, GroupNorm and InstanceNorm
	opAttention  = defineGradOp("ScaledDotProductAttention") // the fused kernel's; composed attention records its parts
	// Views and index operations.
	opReshape    = defineGradOp("Reshape")
	opSqueeze    = defineGradOp("Squeeze")
	opUnsqueeze  = defineGradOp("Unsqueeze")
	opExpand     = defineGradOp("Expand")
	opPermute    = defineGradOp("Permute")
	opSlice      = defineGradOp("Slice")
	opGather     = defineGradOp("Gather")
	opScatterAdd = defineGradOp("ScatterAdd")
	opCat        = defineGradOp("Cat")
	opCumsum     = defineGradOp("Cumsum") // by the device's kernel; the network's gradient is its parts'
	// Layers.
	opMatMul            = defineGradOp("MatMul")
	opConv1d            = defineGradOp("Conv1d")
	opConv2d            = defineGradOp("Conv2d")
	opConv3d            = defineGradOp("Conv3d")
	opMaxPool2d         = defineGradOp("MaxPool2d")
	opAvgPool2d         = defineGradOp("AvgPool2d")
	opAdaptiveAvgPool2d = defineGradOp("AdaptiveAvgPool2d")
	opMaxPool1d         = defineGradOp("MaxPool1d")
	opMaxPool3d         = defineGradOp("MaxPool3d")
	opAvgPool1d         = defineGradOp("AvgPool1d")
	opAvgPool3d         = defineGradOp("AvgPool3d")
	opConvTranspose1d   = defineGradOp("ConvTranspose1d")
	opConvTranspose2d   = defineGradOp("ConvTranspose2d")
	opConvTranspose3d   = defineGradOp("ConvTranspose3d")
)
