package cuda

import (
	_ "embed"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// rowsSource is what the row kernels share (kernels/rows.cuh); softmaxSource
// and normalizeSource are the CUDA C of the softmax and normalization row
// kernels, without the definitions they use (rowModuleSource adds them).
var (
	//go:embed kernels/rows.cuh
	rowsSource string
	//go:embed kernels/softmax.cu
	softmaxSource string
	//go:embed kernels/normalize.cu
	normalizeSource string
)

// rowModuleSource is the module a row kernel file compiles from: ops.cuh's
// scalar semantics, the __shared__ macro, the warp shuffle, kernels/rows.cuh
// and the file.
func rowModuleSource(file string) string {
	return opsSource + sharedMacro + shuffleSource + rowsSource + file
}

// The row kernels' modules, one an entry point.
var (
	softmaxModule           = entrySource(smEntry, softmaxModuleSource)
	softmaxBackwardModule   = entrySource(smBackwardEntry, softmaxModuleSource)
	normalizeModule         = entrySource(nmEntry, normalizeModuleSource)
	normalizeBackwardModule = entrySource(nmBackwardEntry, normalizeModuleSource)
)

// softmaxModuleSource is the softmax kernels' module.
func softmaxModuleSource() string { return rowModuleSource(softmaxSource) }

// normalizeModuleSource is the normalization kernels' module.
func normalizeModuleSource() string { return rowModuleSource(normalizeSource) }

// The row kernels' entry points, their smallest block and the most
// elements a thread keeps in registers a view (kernels/rows.cuh's
// SF_ROW_PER).
const (
	smEntry         = "sf_softmax"
	smBackwardEntry = "sf_softmax_backward"
	nmEntry         = "sf_normalize"
	nmBackwardEntry = "sf_normalize_backward"
	smThreads       = 256
	smPer           = 16
)

// smThreadRow is the longest row one thread serves alone.
const smThreadRow = 4

// smWarpCols is the longest row that the threads of one warp (or fewer)
// serve; longer rows get a whole block.
const smWarpCols = 32 * smPer

// Word offsets of kernels/rows.cuh's sf_rows_params: rows, rank, cols,
// the kernel's argument (log, or eps's float64 bits), W (threads a row),
// the two inputs' addresses (In, or Y or X, and G), Out's, the inputs' offsets and strides along the row, the offset of
// the launch's first row in Out, and the row dimensions' shape and each
// input's strides.
const (
	smRows   = 0
	smRank   = 1
	smCols   = 2
	smArg    = 3
	smWPR    = 4
	smIn     = 5
	smOut    = 7
	smInOff  = 8
	smColStr = 10
	smOutOff = 12
	smShape  = 13
	smStride = smShape + ewMaxRank
	smWords  = smStride + 2*ewMaxRank
)

// smThreadsPerRow returns W, the threads that serve a row of cols
// elements: one for rows of at most smThreadRow (a warp reads 32 adjacent
// rows, with no shuffle); up to a warp, the power of two that gives each
// thread at most smThreadRow elements (W of 8 or more reads whole 32-byte
// sectors of a row, and fewer threads a row mean fewer shuffle steps); a
// warp up to smWarpCols (smPer elements a lane at most, no barrier); and
// beyond a block of 256, 512 or 1024 threads, the smallest that keeps the
// row in registers (rows of up to 16384 elements are read once).
func smThreadsPerRow(cols int) int {
	switch {
	case cols > 512*smPer:
		return 1024
	case cols > 256*smPer:
		return 512
	case cols > smWarpCols:
		return smThreads
	}
	w := 1
	for w*smThreadRow < cols && w < 32 {
		w *= 2
	}
	return w
}

// planRows turns a validated row kernel (ins: In, or Y or X and G; arg its
// argument word) into the parameter words of its launches, with the
// addresses of the inputs' buffers and Out's. The row dimensions (all but the last) lose
// those of size one and merge where contiguous in every input; where more
// than ewMaxRank remain, the leading ones are looped over here, one launch
// per index. A kernel with no rows needs no launch.
func planRows(ins []device.View, out device.View, arg int64, ptrs []uint64, outPtr uint64) [][]int64 {
	if out.NumElements() == 0 {
		return nil
	}
	last := len(out.Shape) - 1
	cols := out.Shape[last]
	strides := make([][]int, len(ins))
	offs := make([]int, len(ins))
	for j, v := range ins {
		strides[j], offs[j] = v.Strides[:last], v.Offset
	}
	dims := mergeDims(out.Shape[:last], strides)
	outer, inner, count := splitKernelDims(dims)
	base := make([]int64, smWords)
	base[smRows], base[smRank], base[smCols] = int64(count), int64(len(inner)), int64(cols)
	base[smArg] = arg
	base[smWPR], base[smOut] = int64(smThreadsPerRow(cols)), int64(outPtr)
	for j, v := range ins {
		base[smIn+j], base[smColStr+j] = int64(ptrs[j]), int64(v.Strides[last])
	}
	for i, d := range inner {
		base[smShape+i] = int64(d.size)
		for j, st := range d.strides {
			base[smStride+j*ewMaxRank+i] = int64(st)
		}
	}
	var launches [][]int64
	splitLeading(outer, count, offs, func(pos int, offs []int) {
		w := append([]int64(nil), base...)
		for j, o := range offs {
			w[smInOff+j] = int64(o)
		}
		w[smOutOff] = int64(out.Offset) + int64(pos)*int64(cols)
		launches = append(launches, w)
	})
	return launches
}

// smBlock returns the block size of a launch: W threads a row, and at
// least smThreads (several short rows a block).
func smBlock(w []int64) int { return int(max(w[smWPR], smThreads)) }

// smGroups returns the row groups (blocks' worth of rows) of a launch.
func smGroups(w []int64) int64 {
	r := int64(smBlock(w)) / w[smWPR]
	return (w[smRows] + r - 1) / r
}
