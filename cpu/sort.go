package cpu

import (
	"cmp"
	"math"
	"runtime"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

var _ device.Sorter = (*Device)(nil)

// Sorting maps each value to an unsigned key whose order is the sort's:
// numbers ascending (−0 as +0), then NaN. Descending sorts use the keys'
// complements, which puts NaN first. Keys of up to 32 bits are packed above
// their position into one uint64, so that a plain integer sort orders by
// key and then by position (the stable order); 64-bit keys sort as pairs.

// sortNow writes the positions that sort each line of k.X into k.Out.
func (d *Device) sortNow(k *device.SortKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	bufs, err := d.begin(k.Validate, k.X.Buf, k.Out.Buf)
	if err != nil {
		return err
	}
	defer d.mu.Unlock()
	xb, ob := bufs[0], bufs[1]
	n := k.X.Shape[len(k.X.Shape)-1]
	lines := device.NumElements(k.X.Shape) / max(n, 1)
	if n == 0 || lines == 0 {
		return nil
	}
	out, kept := asI32(ob)[k.Out.Offset:], k.Kept()
	keys := sortKeys(k.X, xb)
	var f32 []float32
	if k.X.DType == device.Float32 {
		f32 = asF32(xb)
	}
	flip := uint64(0)
	if k.Descending {
		flip = math.MaxUint64
	}
	logn := 1
	for 1<<logn < n {
		logn++
	}
	wide := k.X.DType.Size() == 8
	return d.runTasks(lines, n*logn*4, func(ws *workspace, line int) {
		base, step := lineStart(k.X, line), k.X.Strides[len(k.X.Strides)-1]
		dst := out[line*kept : (line+1)*kept]
		if wide {
			ws.sortPairs = sortWide(grow(ws.sortPairs, n), dst, keys, base, step, flip)
			return
		}
		ws.sortPacked = sortPacked(grow(ws.sortPacked, 2*n), n, dst, f32, keys, base, step, uint32(flip))
	})
}

// minRadixSort is the shortest line sorted by radix: shorter ones take a
// comparison sort, cheaper than four passes with 256-entry counts.
const minRadixSort = 256

// sortPacked sorts a line of n keys of up to 32 bits, each packed above its
// position, by key and then by position, and writes the first len(dst)
// positions; buf holds twice the line. The keys are those of f32's values
// when f32 is not nil, else key's.
func sortPacked(buf []uint64, n int, dst []int32, f32 []float32, key func(i int) uint64, base, step int, flip uint32) []uint64 {
	line := buf[:n]
	if f32 != nil { // the common case, without a call an element
		for j := range line {
			line[j] = uint64(floatKey32(f32[base+j*step])^flip)<<32 | uint64(j)
		}
	} else {
		for j := range line {
			line[j] = uint64(uint32(key(base+j*step))^flip)<<32 | uint64(j)
		}
	}
	switch {
	case len(dst)*topKShare < n:
		line = smallest(line, len(dst))
	case n < minRadixSort:
		slices.Sort(line)
	default:
		line = radixSortKeys(line, buf[n:2*n])
	}
	for j := range dst {
		dst[j] = int32(uint32(line[j]))
	}
	return buf
}

// topKShare is how many times a line's length must exceed the positions
// kept for a partial selection (a heap of them) to replace a whole sort.
const topKShare = 16

// smallest moves the k smallest values of a, in order, to its front and
// returns them: a max-heap of the k smallest seen so far, then sorted.
func smallest(a []uint64, k int) []uint64 {
	h := a[:k]
	for i := k/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	for _, v := range a[k:] {
		if k > 0 && v < h[0] {
			h[0] = v
			siftDown(h, 0)
		}
	}
	slices.Sort(h)
	return h
}

// siftDown restores the max-heap order of h below position i.
func siftDown(h []uint64, i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] > h[c] {
			c++
		}
		if h[i] >= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// radixSortKeys sorts a by the upper 32 bits, keeping the order of equal
// keys (the positions below them are ascending, so the result is ordered
// by key and position), with tmp as scratch of a's length: four stable
// counting passes, one a byte, skipping bytes every key shares. It returns
// whichever of the two holds the result.
func radixSortKeys(a, tmp []uint64) []uint64 {
	var counts [4][256]int
	for _, v := range a {
		k := uint32(v >> 32)
		counts[0][k&0xff]++
		counts[1][k>>8&0xff]++
		counts[2][k>>16&0xff]++
		counts[3][k>>24]++
	}
	for b := range 4 {
		c := &counts[b]
		if c[uint32(a[0]>>32)>>(8*b)&0xff] == len(a) {
			continue // every key has this byte
		}
		sum := 0
		for i, m := range c {
			c[i] = sum
			sum += m
		}
		shift := 32 + 8*uint(b)
		for _, v := range a {
			d := v >> shift & 0xff
			tmp[c[d]] = v
			c[d]++
		}
		a, tmp = tmp, a
	}
	return a
}

// keyPos is a 64-bit sort key and its position in the line.
type keyPos struct {
	key uint64
	pos int32
}

// sortWide sorts a line of 64-bit keys as (key, position) pairs and writes
// the first len(dst) positions.
func sortWide(buf []keyPos, dst []int32, key func(i int) uint64, base, step int, flip uint64) []keyPos {
	for j := range buf {
		buf[j] = keyPos{key(base+j*step) ^ flip, int32(j)}
	}
	slices.SortFunc(buf, func(a, b keyPos) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	for j := range dst {
		dst[j] = buf[j].pos
	}
	return buf
}

// lineStart returns the element offset of line (row-major over every
// dimension but the last) in view v.
func lineStart(v device.View, line int) int {
	off := v.Offset
	for d := len(v.Shape) - 2; d >= 0; d-- {
		s := v.Shape[d]
		off += line % s * v.Strides[d]
		line /= s
	}
	return off
}

// sortKeys returns the sort key of the element at each offset of buffer b
// holding v's values.
func sortKeys(v device.View, b []byte) func(i int) uint64 {
	switch v.DType {
	case device.Float32:
		x := asF32(b)
		return func(i int) uint64 { return uint64(floatKey32(x[i])) }
	case device.Float16:
		x := asU16(b)
		return func(i int) uint64 { return uint64(floatKey32(device.Float16ToFloat32(x[i]))) }
	case device.BFloat16:
		x := asU16(b)
		return func(i int) uint64 { return uint64(floatKey32(device.BFloat16ToFloat32(x[i]))) }
	case device.Float64:
		x := asU64(b)
		return func(i int) uint64 { return floatKey64(math.Float64frombits(x[i])) }
	case device.Int32:
		x := asU32(b)
		return func(i int) uint64 { return uint64(x[i] ^ 1<<31) }
	case device.Int64:
		x := asU64(b)
		return func(i int) uint64 { return x[i] ^ 1<<63 }
	case device.Int8:
		return func(i int) uint64 { return uint64(b[i] ^ 1<<7) }
	}
	return func(i int) uint64 { return uint64(b[i]) } // Uint8, Bool
}

// floatKey32 orders float32 values as the sort does: −0 with +0, NaN last.
func floatKey32(f float32) uint32 {
	switch {
	case f != f:
		return math.MaxUint32
	case f == 0:
		return 1 << 31
	}
	b := math.Float32bits(f)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// floatKey64 is floatKey32 for float64 values.
func floatKey64(f float64) uint64 {
	switch {
	case f != f:
		return math.MaxUint64
	case f == 0:
		return 1 << 63
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}
