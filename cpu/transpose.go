package cpu

import (
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Transposed operands. The interpreter walks the iteration space row by
// row, so a source stored transposed (a weight gradient read through a
// transpose view, say) is read with a large stride: every element from a
// different cache line. Such a source, when big, is first transposed into
// plan-owned scratch with a cache-blocked copy and then read in place.

// transposeMin is the smallest transposed source worth copying.
const transposeMin = 1 << 14

// transposeBlock is the side of the square tiles of the blocked copy.
const transposeBlock = 32

// untranspose replaces every large 4-byte source whose coalesced view is a
// transposed matrix (dims [R, C], strides [1, ld] with ld >= R) by a
// row-major copy.
func (p *plan) untranspose() {
	if len(p.dims) != 2 || p.n < transposeMin {
		return
	}
	used := 0
	for k := range p.srcs {
		s := &p.srcs[k]
		if s.kind != srcStrided || s.strides[0] != 1 || s.strides[1] < p.dims[0] || s.dt.Size() != 4 {
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
		transposeInto(dst, src, s.off, s.strides[1], p.dims[0], p.dims[1])
		s.typed = typed{dt: s.dt, base: unsafe.Pointer(unsafe.SliceData(dst))}
		if s.dt == device.Int32 {
			s.i32 = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst))
		} else {
			s.f32 = dst
		}
		s.off, s.kind = 0, srcContiguous
		s.strides[0], s.strides[1] = p.dims[1], 1
	}
}

// transposeInto sets dst[r*cols+c] = src[off+r+c*ld] for r < rows and
// c < cols, tile by tile so that both sides stay in cache.
func transposeInto(dst, src []float32, off, ld, rows, cols int) {
	for r0 := 0; r0 < rows; r0 += transposeBlock {
		r1 := min(rows, r0+transposeBlock)
		for c0 := 0; c0 < cols; c0 += transposeBlock {
			c1 := min(cols, c0+transposeBlock)
			for r := r0; r < r1; r++ {
				row := dst[r*cols+c0 : r*cols+c1]
				q := off + r + c0*ld
				for c := range row {
					row[c] = src[q]
					q += ld
				}
			}
		}
	}
}
