package cuda

import "github.com/shaderflow/shaderflow/tensor/device"

// copyMaxRank is the rank the copy kernel's parameters hold (SF_COPY_MAX_RANK).
const copyMaxRank = 8

// copyLaunch is one launch of the copy kernel: the fields of its parameter
// struct, in elements.
type copyLaunch struct {
	N, Elem        int64
	DstOff, SrcOff int64
	Shape          []int64
	DstStr, SrcStr []int64
}

// copyDim is one dimension of a copy: its size and both strides.
type copyDim struct{ size, dst, src int }

// planCopy turns a validated copy into launches of the kernel: dimensions of
// size one are dropped and neighbours that are contiguous in both views are
// merged; where more than copyMaxRank dimensions remain, the leading ones are
// looped over here, one launch per index. An empty copy needs no launch.
func planCopy(dst, src device.View) []copyLaunch {
	n := src.NumElements()
	if n == 0 {
		return nil
	}
	var dims []copyDim
	for i, s := range src.Shape {
		if s == 1 {
			continue
		}
		d := copyDim{s, dst.Strides[i], src.Strides[i]}
		if k := len(dims) - 1; k >= 0 && dims[k].dst == d.dst*d.size && dims[k].src == d.src*d.size {
			dims[k] = copyDim{dims[k].size * d.size, d.dst, d.src}
			continue
		}
		dims = append(dims, d)
	}
	var out []copyLaunch
	var walk func(lead []copyDim, doff, soff int)
	walk = func(lead []copyDim, doff, soff int) {
		if len(lead) == 0 {
			inner := dims[len(dims)-min(len(dims), copyMaxRank):]
			l := copyLaunch{Elem: int64(src.DType.Size()), DstOff: int64(doff), SrcOff: int64(soff), N: 1}
			for _, d := range inner {
				l.N *= int64(d.size)
				l.Shape = append(l.Shape, int64(d.size))
				l.DstStr = append(l.DstStr, int64(d.dst))
				l.SrcStr = append(l.SrcStr, int64(d.src))
			}
			out = append(out, l)
			return
		}
		for i := 0; i < lead[0].size; i++ {
			walk(lead[1:], doff+i*lead[0].dst, soff+i*lead[0].src)
		}
	}
	walk(dims[:len(dims)-min(len(dims), copyMaxRank)], dst.Offset, src.Offset)
	return out
}
