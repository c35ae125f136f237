package cpu

import (
	"github.com/shaderflow/shaderflow/tensor/device"
	"runtime"
)

// elems views a buffer as raw elements of one size: 1, 2, 4 or 8 bytes.
type elems interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// copyNow copies one view into another of the same shape and dtype.
func (d *Device) copyNow(k *device.CopyKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	return d.copyLocked(k)
}

// copyLocked runs a validated copy; the caller holds the device.
func (d *Device) copyLocked(k *device.CopyKernel) error {
	src, err := d.data(k.Src.Buf)
	if err != nil {
		return err
	}
	dst, err := d.data(k.Dst.Buf)
	if err != nil {
		return err
	}
	switch k.Src.DType.Size() {
	case 8:
		return copyViewT(d, asU64(dst), asU64(src), k)
	case 4:
		return copyViewT(d, asU32(dst), asU32(src), k)
	case 2:
		return copyViewT(d, asU16(dst), asU16(src), k)
	}
	return copyViewT(d, dst, src, k)
}

// coalesced returns k with dimensions of size one dropped and neighbours
// that both views step through as one merged, so that a copy walks as few
// and as long runs as the views allow (a column of a padded border is one
// run, not one per row).
func coalesced(k *device.CopyKernel) *device.CopyKernel {
	c := *k
	c.Src.Shape, c.Src.Strides, c.Dst.Strides = nil, nil, nil
	for i, n := range k.Src.Shape {
		ss, ds := k.Src.Strides[i], k.Dst.Strides[i]
		if n == 1 {
			continue
		}
		if last := len(c.Src.Shape) - 1; last >= 0 && ss*n == c.Src.Strides[last] && ds*n == c.Dst.Strides[last] {
			c.Src.Shape[last] *= n
			c.Src.Strides[last], c.Dst.Strides[last] = ss, ds
			continue
		}
		c.Src.Shape = append(c.Src.Shape, n)
		c.Src.Strides = append(c.Src.Strides, ss)
		c.Dst.Strides = append(c.Dst.Strides, ds)
	}
	c.Dst.Shape = c.Src.Shape
	return &c
}

// copyViewT copies k.Src to k.Dst, both viewed as elements of type T.
func copyViewT[T elems](d *Device, dst, src []T, k *device.CopyKernel) error {
	k = coalesced(k)
	n := k.Src.NumElements()
	if w, ok := any(dst).([]uint32); ok && transposing(k) {
		return d.transposeCopy(asF32s(w), asF32s(any(src).([]uint32)), k)
	}
	if rows, ok := contiguousRows(k); ok {
		return copyRowsT(d, dst, src, k, rows)
	}
	st := [3][]int{k.Dst.Strides, k.Src.Strides}
	off := [3]int{k.Dst.Offset, k.Src.Offset}
	body := func(ws *workspace, lo, hi int) {
		ws.idx = grow(ws.idx, len(k.Src.Shape))
		walk(k.Src.Shape, st, off, lo, hi, ws.idx, func(_ int, at [3]int, run int) {
			da, sa := at[0], at[1]
			ds, ss := st[0], st[1]
			dst1, src1 := 1, 1
			if len(ds) > 0 {
				dst1, src1 = ds[len(ds)-1], ss[len(ss)-1]
			}
			if dst1 == 1 && src1 == 0 { // a broadcast value (a constant's region)
				fill(dst[da:da+run], src[sa])
				return
			}
			if dst1 == 1 && src1 == -1 { // a flipped view
				reverseInto(dst[da:da+run], src[sa-run+1:sa+1])
				return
			}
			if dst1 == 1 && src1 == 1 {
				for o := 0; o < run; o += copyPiece {
					m := min(copyPiece, run-o)
					copy(dst[da+o:da+o+m], src[sa+o:sa+o+m])
				}
				return
			}
			for t := 0; t < run; t++ {
				dst[da+t*dst1] = src[sa+t*src1]
			}
		})
	}
	if d.serial(n, 1) {
		return safely(func() { body(d.ws[0], 0, n) })
	}
	return d.parallelFor(n, d.grainFor(n, 1), func(w, lo, hi int) { body(d.ws[w], lo, hi) })
}

// copyPiece is the most elements one memmove copies: the runtime's memmove
// switches to non-temporal stores for large sizes, which write around the
// cache a destination that is often read again soon (docs/cpu-speed.md).
const copyPiece = 1 << 13

// minCopyRow is the shortest innermost run that copyRowsT copies row by row
// (shorter rows walk element runs, whose bookkeeping is then no larger).
const minCopyRow = 8

// contiguousRows reports whether k copies rows: a view of rank 2 or more
// whose innermost dimension, at least minCopyRow long, is contiguous in
// both the source and the destination. It returns the number of rows.
func contiguousRows(k *device.CopyKernel) (int, bool) {
	nd := len(k.Src.Shape)
	if nd < 2 || k.Src.Strides[nd-1] != 1 || k.Dst.Strides[nd-1] != 1 || k.Src.Shape[nd-1] < minCopyRow {
		return 0, false
	}
	return k.Src.NumElements() / k.Src.Shape[nd-1], true
}

// copyRowsT copies k.Src to k.Dst as rows of the innermost dimension: the
// walk visits the outer dimensions, and each of its runs is a run of rows
// copied in one loop, rather than one callback per row, which for short
// rows costs more than the row's copy.
func copyRowsT[T elems](d *Device, dst, src []T, k *device.CopyKernel, rows int) error {
	nd := len(k.Src.Shape)
	width := k.Src.Shape[nd-1]
	outer := k.Src.Shape[:nd-1]
	st := [3][]int{k.Dst.Strides[:nd-1], k.Src.Strides[:nd-1]}
	off := [3]int{k.Dst.Offset, k.Src.Offset}
	ds, ss := st[0][nd-2], st[1][nd-2]
	body := func(ws *workspace, lo, hi int) {
		ws.idx = grow(ws.idx, nd-1)
		walk(outer, st, off, lo, hi, ws.idx, func(_ int, at [3]int, run int) {
			da, sa := at[0], at[1]
			for r := 0; r < run; r++ {
				copy(dst[da+r*ds:da+r*ds+width], src[sa+r*ss:sa+r*ss+width])
			}
		})
	}
	if d.serial(rows*width, 1) {
		return safely(func() { body(d.ws[0], 0, rows) })
	}
	return d.parallelFor(rows, d.grainFor(rows, width), func(w, lo, hi int) { body(d.ws[w], lo, hi) })
}
