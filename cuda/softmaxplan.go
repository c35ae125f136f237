package cuda

import (
	_ "embed"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// softmaxSource is the CUDA C of the softmax row kernel, without the
// definitions it uses (softmaxModuleSource adds them).
//
//go:embed kernels/softmax.cu
var softmaxSource string

// softmaxModuleSource is the module the softmax kernel compiles from:
// ops.cuh's scalar semantics, the __shared__ macro, the warp shuffle and
// kernels/softmax.cu.
func softmaxModuleSource() string {
	return opsSource + sharedMacro + shuffleSource + softmaxSource
}

// The softmax kernel's entry point, block size and the most elements a
// thread keeps in registers (kernels/softmax.cu's SF_SM_PER).
const (
	smEntry   = "sf_softmax"
	smThreads = 256
	smPer     = 16
)

// smWarpCols is the longest row that the threads of one warp (or fewer)
// serve; longer rows get a whole block.
const smWarpCols = 32 * smPer

// Word offsets of kernels/softmax.cu's sf_softmax_params: rows, rank,
// cols, col_stride, then In's and Out's addresses, In's offset, the
// offset of the launch's first row in Out, log, W (threads a row), and the
// row dimensions' shape and In strides.
const (
	smRows   = 0
	smRank   = 1
	smCols   = 2
	smColStr = 3
	smIn     = 4
	smOut    = 5
	smInOff  = 6
	smOutOff = 7
	smLog    = 8
	smWPR    = 9
	smShape  = 10
	smStride = smShape + ewMaxRank
	smWords  = smStride + ewMaxRank
)

// smThreadsPerRow returns W, the threads that serve a row of cols
// elements: the power of two at least cols up to a warp (consecutive lanes
// read consecutive elements and no lane idles in a full warp), a warp up
// to smWarpCols (smPer elements a lane at most, no barrier), and the whole
// block beyond.
func smThreadsPerRow(cols int) int {
	if cols > smWarpCols {
		return smThreads
	}
	w := 1
	for w < cols && w < 32 {
		w *= 2
	}
	return w
}

// planSoftmax turns a validated softmax kernel into the parameter words of
// its launches, with the addresses of In's and Out's buffers. The row
// dimensions (all but the last) lose those of size one and merge where
// contiguous in In; where more than ewMaxRank remain, the leading ones are
// looped over here, one launch per index. A kernel with no rows needs no
// launch.
func planSoftmax(k *device.SoftmaxKernel, in, out uint64) [][]int64 {
	if k.In.NumElements() == 0 {
		return nil
	}
	last := len(k.In.Shape) - 1
	cols := k.In.Shape[last]
	dims := mergeDims(k.In.Shape[:last], [][]int{k.In.Strides[:last]})
	outer, inner, count := splitKernelDims(dims)
	base := make([]int64, smWords)
	base[smRows], base[smRank], base[smCols] = int64(count), int64(len(inner)), int64(cols)
	base[smColStr], base[smIn], base[smOut] = int64(k.In.Strides[last]), int64(in), int64(out)
	if k.Log {
		base[smLog] = 1
	}
	base[smWPR] = int64(smThreadsPerRow(cols))
	for i, d := range inner {
		base[smShape+i], base[smStride+i] = int64(d.size), int64(d.strides[0])
	}
	var launches [][]int64
	splitLeading(outer, count, []int{k.In.Offset}, func(pos int, offs []int) {
		w := append([]int64(nil), base...)
		w[smInOff], w[smOutOff] = int64(offs[0]), int64(k.Out.Offset)+int64(pos)*int64(cols)
		launches = append(launches, w)
	})
	return launches
}

// smGroups returns the row groups (blocks' worth of rows) of a launch.
func smGroups(w []int64) int64 {
	r := int64(smThreads) / w[smWPR]
	return (w[smRows] + r - 1) / r
}
