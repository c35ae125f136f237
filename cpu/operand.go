package cpu

import "github.com/shaderflow/shaderflow/tensor/device"

// operand is one factor of a batched matrix product: per batch, a
// rows×cols matrix with row stride sr and column stride sc at element
// offset off[batch] of data. sgemm reads it in place when one of the
// strides is 1 (row-major, or transposed); otherwise it is packed into a
// contiguous row-major copy first.
type operand struct {
	data       []float32
	off        []int
	rows, cols int
	sr, sc     int
	trans      bool      // in place: stored transposed (column-major)
	ld         int       // in place: sgemm's leading dimension
	pack       bool      // must be packed
	shared     bool      // every batch reads the same matrix
	packed     []float32 // the matrix packed once, when shared and pack
}

// init describes operand view v (shape batch ++ [rows, cols]) of data,
// using off (one entry per batch) for the batch offsets.
func (o *operand) init(data []float32, v device.View, batch []int, off []int, rows, cols int) {
	nb := len(batch)
	*o = operand{data: data, off: off, rows: rows, cols: cols, sr: v.Strides[nb], sc: v.Strides[nb+1]}
	batchOffsets(off, v, batch)
	o.shared = true
	for _, x := range off {
		o.shared = o.shared && x == off[0]
	}
	var ok bool
	o.trans, o.ld, ok = layout(rows, cols, o.sr, o.sc)
	o.pack = !ok
}

// layout returns how sgemm reads a rows×cols matrix with row stride sr and
// column stride sc in place: row-major with leading dimension ld, or (trans)
// stored transposed with leading dimension ld. ok is false when neither
// fits (no unit stride, or rows that overlap) and the matrix must be packed.
// A dimension of size one may have any stride.
func layout(rows, cols, sr, sc int) (trans bool, ld int, ok bool) {
	if (cols == 1 || sc == 1) && (rows == 1 || sr >= cols) {
		if rows == 1 {
			return false, max(cols, 1), true
		}
		return false, sr, true
	}
	if (rows == 1 || sr == 1) && (cols == 1 || sc >= rows) {
		if cols == 1 {
			return true, max(rows, 1), true
		}
		return true, sc, true
	}
	return false, 0, false
}

// matrix returns batch bi's matrix as sgemm takes it: the slice, leading
// dimension and whether it is stored transposed. A matrix that must be
// packed is packed into *buf unless it was packed once for every batch.
func (o *operand) matrix(bi int, buf *[]float32) ([]float32, int, bool) {
	switch {
	case !o.pack:
		return o.data[o.off[bi]:], o.ld, o.trans
	case o.packed != nil:
		return o.packed, o.cols, false
	}
	*buf = grow(*buf, o.rows*o.cols)
	o.packInto(*buf, bi)
	return *buf, o.cols, false
}

// packOnce packs the shared matrix into *buf and returns it.
func (o *operand) packOnce(buf *[]float32) []float32 {
	*buf = grow(*buf, o.rows*o.cols)
	o.packInto(*buf, 0)
	return *buf
}

// packInto copies batch bi's matrix into dst, row-major.
func (o *operand) packInto(dst []float32, bi int) {
	for r := 0; r < o.rows; r++ {
		row := dst[r*o.cols : (r+1)*o.cols]
		q := o.off[bi] + r*o.sr
		for c := range row {
			row[c] = o.data[q]
			q += o.sc
		}
	}
}

// batchOffsets fills off with the element offset of each batch index of v,
// whose leading len(batch) dimensions are the batch.
func batchOffsets(off []int, v device.View, batch []int) {
	nb := len(batch)
	for bi := range off {
		o, rem := v.Offset, bi
		for d := nb - 1; d >= 0; d-- {
			o += (rem % batch[d]) * v.Strides[d]
			rem /= batch[d]
		}
		off[bi] = o
	}
}
