package cpu

import (
	"unsafe"

	"github.com/shaderflow/shaderflow/cpu/internal/gemm"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// Transposed operands. The interpreter walks the iteration space row by
// row, so a source stored transposed (a weight gradient read through a
// transpose view, a permute to channels-last, .T().Contiguous()) is read
// with a large stride: every element from a different cache line. Such a
// source, when big, is first transposed into plan-owned scratch with the
// gemm package's register transposes, one matrix per index of the outer
// dimensions, and then read in place.

// transposeMin is the smallest transposed source worth copying, and
// transposeMax the largest the plan copies: its scratch lives on the Go
// heap, outside the device's memory limit, and is kept for the next kernel,
// so a larger source is gathered element by element instead.
const (
	transposeMin = 1 << 14
	transposeMax = 1 << 26
)

// untranspose replaces every large 4-byte source whose coalesced view ends
// in a transposed matrix (last two dims [R, C] with strides [1, ld], ld >=
// R; any outer dims) by a row-major copy.
func (p *plan) untranspose() {
	nd := len(p.dims)
	if nd < 2 || p.n < transposeMin || p.n > transposeMax {
		return
	}
	rows, cols := p.dims[nd-2], p.dims[nd-1]
	used := 0
	for k := range p.srcs {
		s := &p.srcs[k]
		if s.kind != srcStrided || s.strides[nd-2] != 1 || s.strides[nd-1] < rows || s.dt.Size() != 4 {
			continue
		}
		if used == len(p.tbuf) {
			p.tbuf = append(p.tbuf, nil)
		}
		p.tbuf[used] = grow(p.tbuf[used], p.n)
		dst := p.tbuf[used]
		used++
		src := s.f32
		if s.dt == device.Int32 {
			src = unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s.i32))), len(s.i32))
		}
		p.idx = grow(p.idx, nd)
		outer, at := p.idx[:nd-2], s.off
		clear(outer)
		for m := 0; m < p.n; m += rows * cols { // one matrix per outer index, odometer over the outer dims
			transposeInto(dst[m:m+rows*cols], src, at, s.strides[nd-1], rows, cols)
			for d := nd - 3; d >= 0; d-- {
				if outer[d]++; outer[d] < p.dims[d] {
					at += s.strides[d]
					break
				}
				at -= (p.dims[d] - 1) * s.strides[d]
				outer[d] = 0
			}
		}
		s.typed = typed{dt: s.dt, base: unsafe.Pointer(unsafe.SliceData(dst))}
		if s.dt == device.Int32 {
			s.i32 = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst))
		} else {
			s.f32 = dst
		}
		s.off, s.kind = 0, srcContiguous
		acc := 1
		for d := nd - 1; d >= 0; d-- {
			s.strides[d] = acc
			acc *= p.dims[d]
		}
	}
}

// transposeTile is the side of the square tiles transposeInto moves at a
// time: a tile of the source and one of the destination (16 KiB each) stay
// in L1 together.
const transposeTile = 64

// transposeInto sets dst[r*cols+c] = src[off+r+c*ld] for r < rows and
// c < cols: the cols×rows matrix at src[off:] (rows ld apart), transposed
// tile by tile.
func transposeInto(dst, src []float32, off, ld, rows, cols int) {
	for c0 := 0; c0 < cols; c0 += transposeTile {
		c1 := min(cols, c0+transposeTile)
		for r0 := 0; r0 < rows; r0 += transposeTile {
			r1 := min(rows, r0+transposeTile)
			gemm.Transpose(dst[r0*cols+c0:], cols, src[off+c0*ld+r0:], ld, c1-c0, r1-r0)
		}
	}
}

// transposing reports whether a coalesced copy is a large transpose: its
// last two dimensions [R, C] are row-major in the destination (strides
// [C, 1]) and transposed in the source (strides [1, ld], ld >= R); the
// outer dimensions may step anyhow.
func transposing(k *device.CopyKernel) bool {
	nd := len(k.Src.Shape)
	if nd < 2 || k.Src.NumElements() < transposeMin || k.Src.DType.Size() != 4 {
		return false
	}
	rows, cols := k.Src.Shape[nd-2], k.Src.Shape[nd-1]
	ds, ss := k.Dst.Strides, k.Src.Strides
	return ds[nd-1] == 1 && ds[nd-2] == cols && ss[nd-2] == 1 && ss[nd-1] >= rows
}

// transposeCopy runs a copy that transposing accepted, in parallel over
// blocks of rows of every matrix, tile by tile.
func (d *Device) transposeCopy(dst, src []float32, k *device.CopyKernel) error {
	nd := len(k.Src.Shape)
	rows, cols := k.Src.Shape[nd-2], k.Src.Shape[nd-1]
	outer := device.View{Shape: k.Src.Shape[:nd-1], Strides: k.Src.Strides[:nd-1], Offset: k.Src.Offset}
	douter := device.View{Shape: k.Dst.Shape[:nd-1], Strides: k.Dst.Strides[:nd-1], Offset: k.Dst.Offset}
	blocks := (rows + transposeTile - 1) / transposeTile
	mats := k.Src.NumElements() / (rows * cols)
	ld := k.Src.Strides[nd-1]
	body := func(lo, hi int) {
		for t := lo; t < hi; t++ {
			m, r0 := t/blocks, t%blocks*transposeTile
			r1 := min(rows, r0+transposeTile)
			at := lineStart(outer, m) + r0 // row r0 of matrix m
			dt := lineStart(douter, m) + r0*cols
			transposeInto(dst[dt:], src, at, ld, r1-r0, cols)
		}
	}
	n := mats * blocks
	if d.serial(rows*cols*mats, 1) {
		return safely(func() { body(0, n) })
	}
	return d.parallelFor(n, max(1, n/(4*d.workers)), func(_, lo, hi int) { body(lo, hi) })
}
