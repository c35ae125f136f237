package cpu

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// badIndex records the first out-of-range index found by parallel workers.
type badIndex struct {
	pos atomic.Int64 // 1 + the position of a bad index; 0 when none
	val atomic.Int64
}

func (b *badIndex) set(pos int, v int32) {
	if b.pos.CompareAndSwap(0, int64(pos)+1) {
		b.val.Store(int64(v))
	}
}

// err returns the error for a recorded bad index, or nil.
func (b *badIndex) err(kernel string, shape []int, limit int) error {
	p := b.pos.Load()
	if p == 0 {
		return nil
	}
	return fmt.Errorf("cpu: %s: index %d at position %v of the index (shape %v) is out of range [0,%d)",
		kernel, b.val.Load(), unravel(int(p-1), shape), shape, limit)
}

// unravel returns the multi-index of row-major position p in shape.
func unravel(p int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = p % shape[d]
		p /= shape[d]
	}
	return idx
}

// gatherNow runs torch.gather; an index out of range is an error.
func (d *Device) gatherNow(k *device.GatherKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	bufs, err := d.begin(k.Validate, k.Src.Buf, k.Index.Buf, k.Out.Buf)
	if err != nil {
		return err
	}
	defer d.mu.Unlock()
	src, idx, out := bufs[0], bufs[1], bufs[2]
	switch k.Src.DType.Size() {
	case 8:
		return gatherT(d, asU64(out), asU64(src), asI32(idx), k)
	case 4:
		return gatherT(d, asU32(out), asU32(src), asI32(idx), k)
	case 2:
		return gatherT(d, asU16(out), asU16(src), asI32(idx), k)
	}
	return gatherT(d, out, src, asI32(idx), k)
}

// gatherT gathers elements of type T.
func gatherT[T elems](d *Device, out, src []T, index []int32, k *device.GatherKernel) error {
	shape := k.Index.Shape
	n := device.NumElements(shape)
	rank := len(shape)
	// Src strides with the gathered axis removed: the index supplies it.
	srcSt := append(d.scratch.ints[:0], k.Src.Strides...)
	srcSt[k.Axis] = 0
	d.scratch.ints = srcSt
	st := [3][]int{k.Index.Strides, srcSt}
	off := [3]int{k.Index.Offset, k.Src.Offset}
	axStride, limit := k.Src.Strides[k.Axis], k.Src.Shape[k.Axis]
	if sharedRowIndex(k) {
		return gatherRows(d, out, src, index[k.Index.Offset:][:shape[rank-1]], k)
	}
	var bad badIndex
	body := func(ws *workspace, lo, hi int) {
		ws.idx = grow(ws.idx, rank)
		walk(shape, st, off, lo, hi, ws.idx, func(pos int, at [3]int, run int) {
			is, ss := st[0][rank-1], st[1][rank-1]
			if is == 0 && ss == 1 { // one index for a contiguous run of src: a row lookup
				v := index[at[0]]
				if v < 0 || int(v) >= limit {
					bad.set(pos, v)
					return
				}
				o, s := k.Out.Offset+pos, at[1]+int(v)*axStride
				copy(out[o:o+run], src[s:s+run])
				return
			}
			for t := 0; t < run; t++ {
				v := index[at[0]+t*is]
				if v < 0 || int(v) >= limit {
					bad.set(pos+t, v)
					return
				}
				out[k.Out.Offset+pos+t] = src[at[1]+t*ss+int(v)*axStride]
			}
		})
	}
	if d.serial(n, 2) {
		err := safely(func() { body(d.ws[0], 0, n) })
		if err != nil {
			return err
		}
	} else if err := d.parallelFor(n, d.grainFor(n, 2), func(w, lo, hi int) { body(d.ws[w], lo, hi) }); err != nil {
		return err
	}
	return bad.err("gather", shape, limit)
}

// sharedRowIndex reports whether k gathers along the last axis with one
// contiguous row of indices broadcast over every other dimension (an
// IndexSelect along the last axis, as Interpolate's): each output row is
// then its source row read at the same positions.
func sharedRowIndex(k *device.GatherKernel) bool {
	rank := len(k.Index.Shape)
	if k.Axis != rank-1 || k.Index.Strides[rank-1] != 1 {
		return false
	}
	for _, s := range k.Index.Strides[:rank-1] {
		if s != 0 {
			return false
		}
	}
	return true
}

// gatherRows gathers every row of the output from its source row at the
// positions idx, which are checked once for all rows.
func gatherRows[T elems](d *Device, out, src []T, idx []int32, k *device.GatherKernel) error {
	shape, rank := k.Index.Shape, len(k.Index.Shape)
	limit := k.Src.Shape[rank-1]
	for i, v := range idx {
		if v < 0 || int(v) >= limit {
			return fmt.Errorf("cpu: gather: index %d at position %v of the index (shape %v) is out of range [0,%d)",
				v, unravel(i, shape), shape, limit)
		}
	}
	w := len(idx)
	rows := device.NumElements(shape) / max(w, 1)
	if w == 0 || rows == 0 {
		return nil
	}
	step := k.Src.Strides[rank-1]
	// Rows are numbered in the index's shape, which may be smaller than
	// Src's outside the gathered axis.
	if reps := repeats(idx, limit); reps > 0 && step == 1 && k.Src.DType.Size() == 4 {
		return d.repeatRows(asF32s(any(out).([]uint32)), asF32s(any(src).([]uint32)), reps, k)
	}
	outer := device.View{Shape: shape, Strides: k.Src.Strides, Offset: k.Src.Offset}
	return d.runTasks(rows, w, func(_ *workspace, r int) {
		dst := out[k.Out.Offset+r*w : k.Out.Offset+(r+1)*w]
		base := lineStart(outer, r)
		if step == 1 {
			row := src[base : base+limit]
			for j, v := range idx {
				dst[j] = row[v]
			}
			return
		}
		for j, v := range idx {
			dst[j] = src[base+int(v)*step]
		}
	})
}

// repeatRows runs a shared-row gather that repeats each element of the
// rows reps times (nearest upsampling) with vec.Repeat, walking runs of
// rows: a run of consecutive source rows is one call.
func (d *Device) repeatRows(out, src []float32, reps int, k *device.GatherKernel) error {
	shape, rank := k.Index.Shape, len(k.Index.Shape)
	limit := k.Src.Shape[rank-1]
	w, rows := limit*reps, device.NumElements(shape)/(limit*reps)
	dims, strides := shape[:rank-1], k.Src.Strides[:rank-1]
	rowStep := 0
	if rank > 1 {
		rowStep = strides[rank-2]
	}
	body := func(ws *workspace, lo, hi int) {
		ws.idx = grow(ws.idx, len(dims))
		walk(dims, [3][]int{strides}, [3]int{k.Src.Offset}, lo, hi, ws.idx, func(r0 int, at [3]int, run int) {
			o := k.Out.Offset + r0*w
			if rowStep == limit {
				vec.Repeat(out[o:][:run*w], src[at[0]:][:run*limit], reps)
				return
			}
			for r := range run {
				vec.Repeat(out[o+r*w:][:w], src[at[0]+r*rowStep:][:limit], reps)
			}
		})
	}
	if d.serial(rows*w, 1) {
		return safely(func() { body(d.ws[0], 0, rows) })
	}
	return d.parallelFor(rows, d.grainFor(rows, w), func(wk, lo, hi int) { body(d.ws[wk], lo, hi) })
}

// repeats returns r when idx is each of 0..limit-1 repeated r times in
// order, else 0.
func repeats(idx []int32, limit int) int {
	if limit == 0 || len(idx)%limit != 0 {
		return 0
	}
	r := len(idx) / limit
	for j, v := range idx {
		if int(v) != j/r {
			return 0
		}
	}
	return r
}

// scatterNow runs torch.scatter_add_ in place. Work is split by the positions
// outside the scattered axis, so no two workers add into one element and the
// order of additions is deterministic. An index out of range is an error;
// additions before it may have happened.
func (d *Device) scatterNow(k *device.ScatterKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	dstB, err := d.data(k.Dst.Buf)
	if err != nil {
		return err
	}
	idxB, err := d.data(k.Index.Buf)
	if err != nil {
		return err
	}
	srcB, err := d.data(k.Src.Buf)
	if err != nil {
		return err
	}
	dst, index, src := asF32(dstB), asI32(idxB), asF32(srcB)
	shape := k.Index.Shape
	n := device.NumElements(shape)
	if n == 0 {
		return nil
	}
	rank, ax := len(shape), k.Axis
	if rank == 2 && ax == 0 && k.Index.Strides[1] == 0 && k.Src.Strides[1] == 1 {
		return d.scatterRows(dst, index, src, k)
	}
	// Iterate with the axis innermost: dims, then strides of Index, Src and
	// Dst (Dst's axis stride zero: the index supplies it), all permuted.
	buf := grow(d.scratch.ints, 4*rank)
	d.scratch.ints = buf
	dims, is, ss, ds := buf[:rank], buf[rank:2*rank], buf[2*rank:3*rank], buf[3*rank:]
	dstSt := device.ContiguousStrides(k.Dst.Shape)
	j := 0
	for dd := 0; dd < rank; dd++ {
		if dd == ax {
			continue
		}
		dims[j], is[j], ss[j], ds[j] = shape[dd], k.Index.Strides[dd], k.Src.Strides[dd], dstSt[dd]
		j++
	}
	dims[j], is[j], ss[j], ds[j] = shape[ax], k.Index.Strides[ax], k.Src.Strides[ax], 0
	st := [3][]int{is, ss, ds}
	off := [3]int{k.Index.Offset, k.Src.Offset, k.Dst.Offset}
	axStride, limit, line := dstSt[ax], k.Dst.Shape[ax], shape[ax]
	var bad badIndex
	body := func(ws *workspace, lo, hi int) {
		ws.idx = grow(ws.idx, rank)
		walk(dims, st, off, lo, hi, ws.idx, func(pos int, at [3]int, run int) {
			for t := 0; t < run; t++ {
				v := index[at[0]+t*is[rank-1]]
				if v < 0 || int(v) >= limit {
					bad.set(pos+t, v)
					return
				}
				dst[at[2]+int(v)*axStride] += src[at[1]+t*ss[rank-1]]
			}
		})
	}
	if d.serial(n, 2) {
		if err := safely(func() { body(d.ws[0], 0, n) }); err != nil {
			return err
		}
	} else if err := d.parallelFor(n, roundUp(d.grainFor(n, 2), line), func(w, lo, hi int) { body(d.ws[w], lo, hi) }); err != nil {
		return err
	}
	if p := bad.pos.Load(); p != 0 {
		// Report the position in Index's own (unpermuted) order.
		perm := unravel(int(p-1), dims)
		pos := append([]int{}, perm[:ax]...)
		pos = append(pos, perm[rank-1])
		pos = append(pos, perm[ax:rank-1]...)
		return fmt.Errorf("cpu: scatter: index %d at position %v of the index (shape %v) is out of range [0,%d)",
			bad.val.Load(), pos, shape, limit)
	}
	return nil
}

// scatterRows runs a rank-2 scatter along axis 0 whose index is the same
// along each row (an embedding's gradient: row i of Src is added to row
// Index[i] of Dst) as additions of row segments. Workers split the columns,
// so no two add into one element, and each adds the rows in order, the
// order of the general path.
func (d *Device) scatterRows(dst []float32, index []int32, src []float32, k *device.ScatterKernel) error {
	rows, cols := k.Index.Shape[0], k.Index.Shape[1]
	limit, ldd := k.Dst.Shape[0], k.Dst.Shape[1]
	is, ss := k.Index.Strides[0], k.Src.Strides[0]
	var bad badIndex
	body := func(c0, c1 int) {
		for i := 0; i < rows; i++ {
			v := index[k.Index.Offset+i*is]
			if v < 0 || int(v) >= limit {
				bad.set(i*cols, v)
				return
			}
			row := dst[k.Dst.Offset+int(v)*ldd:]
			s := src[k.Src.Offset+i*ss:]
			vec.Add(row[c0:c1], row[c0:c1], s[c0:c1])
		}
	}
	const minCols = 16 // columns per task: a few vectors
	if d.serial(rows*cols, 2) || cols < 2*minCols {
		if err := safely(func() { body(0, cols) }); err != nil {
			return err
		}
	} else {
		tasks := min(d.workers, cols/minCols)
		per := roundUp((cols+tasks-1)/tasks, minCols)
		err := d.parallelFor(tasks, 1, func(_, lo, hi int) {
			for t := lo; t < hi; t++ {
				body(min(t*per, cols), min((t+1)*per, cols))
			}
		})
		if err != nil {
			return err
		}
	}
	if p := bad.pos.Load(); p != 0 {
		return fmt.Errorf("cpu: scatter: index %d at position %v of the index (shape %v) is out of range [0,%d)",
			bad.val.Load(), unravel(int(p-1), k.Index.Shape), k.Index.Shape, limit)
	}
	return nil
}
