package cpu

import (
	"math"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// The fused attention kernels (attention.go, attention_backward.go) work on
// one batch element at a time and on blocks of query rows, so that a block
// of scores stays in the worker's cache; this file holds what both share:
// the problem's sizes, the block height, and access to the operands'
// matrices in place or gathered.

// attnBlockFloats bounds a block of scores (rows × keys): two such blocks
// (the backward's weights and their gradient) fit a core's L2 cache.
const attnBlockFloats = 1 << 15

// attnCausalRows bounds a causal block's height: a block of rows [i0, i1)
// computes scores for keys below i1 only, so shorter blocks skip more of the
// masked triangle, at the cost of smaller products.
const attnCausalRows = 64

// attnAlign is the width of the widest product micro-kernel (AVX-512's 32
// columns; a multiple of AVX2's 16): split blocks hold a multiple of it
// rows, so that a causal block's keys, i1 of them, fill whole panels and the
// score product takes no ragged-edge path.
const attnAlign = 32

// attnDims are the sizes of an attention problem: nb batch elements (the
// product of the batch shape B...), l queries, s keys, e features of Q and
// K, ev features of V.
type attnDims struct {
	batch           []int
	nb, l, s, e, ev int
}

// attnDimsOf returns the sizes of the validated operands Q [B..., L, E],
// K [B..., S, E] and V [B..., S, Ev].
func attnDimsOf(q, k, v device.View) attnDims {
	r := len(q.Shape)
	batch := q.Shape[:r-2]
	return attnDims{batch: batch, nb: device.NumElements(batch),
		l: q.Shape[r-2], s: k.Shape[r-2], e: q.Shape[r-1], ev: v.Shape[r-1]}
}

// blockRows returns the number of query rows per block: as many as keep a
// block of scores within attnBlockFloats (fewer with causal masking),
// rounded down to a multiple of attnAlign when the rows are split.
func (a attnDims) blockRows(causal bool) int {
	lb := max(1, attnBlockFloats/a.s)
	if causal {
		lb = min(lb, attnCausalRows)
	}
	if lb >= a.l {
		return max(a.l, 1)
	}
	if lb > attnAlign {
		lb -= lb % attnAlign
	}
	return lb
}

// attnTasksPerWorker is how many tasks the kernels split their blocks or
// batch elements into per worker. A task is tens of microseconds or more,
// so scheduling costs nothing next to it, and many tasks bound the wait for
// the last one: a worker that joins late or is preempted on a busy machine
// leaves the others little to wait for.
const attnTasksPerWorker = 32

// attnGrain returns the grain that splits n items into about
// attnTasksPerWorker tasks per worker.
func (d *Device) attnGrain(n int) int {
	return max(1, n/(attnTasksPerWorker*d.workers))
}

// keys returns how many keys a block of query rows [i0, i1) reads: all of
// them, or with causal masking those below i1.
func (a attnDims) keys(causal bool, i1 int) int {
	if causal {
		return min(a.s, i1)
	}
	return a.s
}

// attnOperands describes the matrices of views sharing the batch shape
// a.batch: ops[i] is views[i] as an operand of a product (rows × cols per
// batch element). The batch offsets live in offs, one run of a.nb per view.
func attnOperands(ops []operand, data [][]float32, views []device.View, a attnDims, offs []int, dims [][2]int) {
	for i, v := range views {
		ops[i].init(data[i], v, a.batch, offs[i*a.nb:(i+1)*a.nb], dims[i][0], dims[i][1])
	}
}

// attnMat is a matrix as a product takes it: the slice, its leading
// dimension and whether it is stored transposed.
type attnMat struct {
	m     []float32
	ld    int
	trans bool
}

// from returns the matrix's rows from r on.
func (x attnMat) from(r int) attnMat {
	if x.m == nil {
		return x
	}
	step := x.ld
	if x.trans {
		step = 1
	}
	return attnMat{x.m[r*step:], x.ld, x.trans}
}

// attnBlock returns rows [r0, r1) of batch element bi's matrix of o, read
// in place when the layout allows and otherwise gathered row-major into buf
// (at least (r1-r0)·cols long).
func attnBlock(o *operand, bi, r0, r1 int, buf []float32) attnMat {
	if r1 == r0 || o.cols == 0 {
		return attnMat{nil, max(o.cols, 1), false}
	}
	if !o.pack {
		return attnMat{o.data[o.off[bi]+r0*o.sr:], o.ld, o.trans}
	}
	for r := r0; r < r1; r++ {
		row := buf[(r-r0)*o.cols : (r-r0+1)*o.cols]
		q := o.off[bi] + r*o.sr
		for c := range row {
			row[c] = o.data[q]
			q += o.sc
		}
	}
	return attnMat{buf, o.cols, false}
}

// attnRow returns row r of batch element bi's matrix of o as a contiguous
// slice: in place when its elements are adjacent, else gathered into buf
// (at least cols long).
func attnRow(o *operand, bi, r int, buf []float32) []float32 {
	q := o.off[bi] + r*o.sr
	if o.cols == 0 {
		return nil
	}
	if o.sc == 1 || o.cols == 1 {
		return o.data[q : q+o.cols]
	}
	row := buf[:o.cols]
	for c := range row {
		row[c] = o.data[q]
		q += o.sc
	}
	return row
}

// allFinite reports whether x holds no NaN or infinity. A float64 sum of
// float32 values cannot overflow, so it is finite exactly when every term
// is.
func allFinite(x []float32) bool {
	s := vec.Sum(x)
	return !math.IsNaN(s) && !math.IsInf(s, 0)
}

// arena hands out consecutive slices of a worker's scratch buffer.
type arena struct {
	buf []float32
	at  int
}

// take returns the next n floats, capped at n.
func (a *arena) take(n int) []float32 {
	s := a.buf[a.at : a.at+n : a.at+n]
	a.at += n
	return s
}

// packLen returns n when operand o must be gathered and 0 when it is read
// in place: the scratch its blocks of n elements need.
func packLen(o *operand, n int) int {
	if o.pack {
		return n
	}
	return 0
}
