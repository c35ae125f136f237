package cuda

import "github.com/shaderflow/shaderflow/tensor/device"

// The index kernels' entry points (kernels/index.cu).
const (
	gatherEntry  = "sf_gather"
	scatterEntry = "sf_scatter"
)

// Word offsets of kernels/index.cu's sf_index_params: n, rank, size (the
// data's length along the axis), elem (bytes an element), tag, status
// (the status words' address), shape, then the three views' addresses,
// offsets and strides (view 0 the data, 1 Index, 2 the other view).
const (
	idxTag    = 4
	idxStatus = 5
	idxShape  = 6
	idxPtr    = idxShape + ewMaxRank
	idxOff    = idxPtr + 3
	idxStride = idxOff + 3
	idxWords  = idxStride + 3*ewMaxRank
)

// planIndexed turns a validated gather (views Src, Index, Out) or scatter
// (Dst, Index, Src) into the parameter words of its launches, addresses
// from ptrs; the caller fills in the tag and status words. The axis
// becomes the launch's dimension 0; the other dimensions of Index's shape
// lose those of size one and merge where contiguous in all three views,
// and where more than ewMaxRank-1 remain, the leading ones are looped over
// here, one launch per index. An empty Index needs no launch.
func planIndexed(axis int, views [3]device.View, ptrs [3]uint64, elem int) [][]int64 {
	index := views[1]
	if index.NumElements() == 0 {
		return nil
	}
	axisDim := ewDim{size: index.Shape[axis], strides: make([]int, 3)}
	var shape []int
	strides := make([][]int, 3)
	for j, v := range views {
		axisDim.strides[j] = v.Strides[axis]
		strides[j] = append(append([]int(nil), v.Strides[:axis]...), v.Strides[axis+1:]...)
	}
	shape = append(append(shape, index.Shape[:axis]...), index.Shape[axis+1:]...)
	rest := mergeDims(shape, strides)
	split := len(rest) - min(len(rest), ewMaxRank-1)
	outer, inner := rest[:split], append([]ewDim{axisDim}, rest[split:]...)
	count := 1
	base := make([]int64, idxWords)
	for i, d := range inner {
		count *= d.size
		base[idxShape+i] = int64(d.size)
		for j, s := range d.strides {
			base[idxStride+j*ewMaxRank+i] = int64(s)
		}
	}
	base[0], base[1], base[2], base[3] = int64(count), int64(len(inner)), int64(views[0].Shape[axis]), int64(elem)
	offs := make([]int, 3)
	for j, v := range views {
		base[idxPtr+j] = int64(ptrs[j])
		offs[j] = v.Offset
	}
	var out [][]int64
	splitLeading(outer, count, offs, func(_ int, offs []int) {
		w := append([]int64(nil), base...)
		for j, o := range offs {
			w[idxOff+j] = int64(o)
		}
		out = append(out, w)
	})
	return out
}
