package onnx

import "slices"

// ops maps each supported operation type to its implementation.
var ops = map[string]opFunc{}

func init() {
	for name := range binaries {
		ops[name] = runBinary
	}
	for name := range unaries {
		ops[name] = runUnary
	}
	for _, name := range []string{"Min", "Max", "Sum", "Mean"} {
		ops[name] = runVariadic
	}
	for _, name := range []string{"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
		"ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSumExp"} {
		ops[name] = runReduce
	}
	for name, f := range map[string]opFunc{
		"Cast": runCast, "Where": runWhere, "Clip": runClip,
		"Identity": runIdentity, "Dropout": runDropout, "Constant": runConstant,
		"Shape": runShape, "Size": runSize, "Reshape": runReshape, "Flatten": runFlatten,
		"Squeeze": runSqueeze, "Unsqueeze": runUnsqueeze, "Concat": runConcat,
		"Slice": runSlice, "Transpose": runTranspose, "Expand": runExpand, "Gather": runGather,
		"ConstantOfShape": runConstantOfShape, "Range": runRange, "Split": runSplit,
		"Trilu": runTrilu, "Pad": runPad, "Tile": runTile,
		"MatMul": runMatMul, "Gemm": runGemm, "Conv": runConv,
		"MaxPool": runPool, "AveragePool": runPool,
		"GlobalAveragePool": runGlobalPool, "GlobalMaxPool": runGlobalPool,
		"BatchNormalization": runBatchNorm, "LayerNormalization": runLayerNorm,
		"Softmax": runSoftmax, "LogSoftmax": runSoftmax,
		"ArgMax": runArgMax, "ArgMin": runArgMax,
	} {
		ops[name] = f
	}
}

// SupportedOps returns the operation types Run supports, sorted.
func SupportedOps() []string {
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
