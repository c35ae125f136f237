package cpu

import (
	"sync/atomic"

	"github.com/shaderflow/shaderflow/cpu/internal/gemm"
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
)

// Forward convolutions with a height stride of one, from a third of the
// patch matrix. The patch rows of kernel row kh are those of kernel row 0
// shifted down by kh·dh input rows, which is kh·dh·OW positions when the
// rows are whole output rows. A tile builds, from its band, only the patch
// rows of kernel row 0, over all the band's rows (channels × kernel columns,
// "row patches"), and the product sums over the kernel rows: C = Σ_kh
// W_kh·R(kh·dh·OW), with R the row patches read from that offset and W_kh
// the weights of kernel row kh, reordered once per convolution (sgemmTaps).
// C is written straight into the output.

// tapsMinDepth is the shallowest product per kernel row (channels × kernel
// columns) that reads row patches: shallower ones spend more of each
// micro-kernel call loading and storing C.
const tapsMinDepth = 32

// tapsMinReuse is how many output positions (over the batch) a filter
// must have for row patches: the weights' reordering moves o·cgk floats
// once, and each position's row patches move about cgk·(kh-1)/kh fewer
// than its patches.
const tapsMinReuse = 2

// usesTaps reports whether j's forward products may read row patches: they
// do on products that run on one goroutine (forwardImage).
func (j *convJob) usesTaps() bool {
	g := &j.g
	return sgemmTaps != nil && j.bandable() && g.s[1] == 1 && g.k[1] > 1 && g.cg*g.k[2] >= tapsMinDepth &&
		g.n*g.outVol >= tapsMinReuse*g.o
}

// convCalls numbers convolutions, so that a worker knows when its row
// patches' padding columns were cleared for another one.
var convCalls atomic.Uint64

// prepareTaps packs the weights for gemm.SgemmTaps, one operand per group
// whose tap kh is the weights of kernel row kh (W_kh[o][c·kw + x] =
// W[o][c][kh][x]), and records each kernel row's offset in the row
// patches. It runs once per convolution, on the first product that reads
// row patches (j.tapsOnce).
func (j *convJob) prepareTaps() {
	g := &j.g
	ts := j.taps
	ts.packed = grow(ts.packed, g.groups)
	j.seq = convCalls.Add(1)
	kh, kw := g.k[1], g.k[2]
	depth := g.cg * kw
	ts.byRow = grow(ts.byRow, g.o*kh*depth)
	for o := 0; o < g.o; o++ {
		src, dst := j.w[o*j.cgk:][:j.cgk], ts.byRow[o*kh*depth:][:kh*depth]
		for c := 0; c < g.cg; c++ {
			w := src[c*kh*kw:][:kh*kw]
			for r := 0; r < kh; r++ {
				d := dst[r*depth+c*kw:][:kw]
				for x := range d {
					d[x] = w[r*kw+x]
				}
			}
		}
	}
	for gi := range ts.packed {
		ts.packed[gi].Pack(g.og, depth, kh, ts.byRow[gi*g.og*kh*depth:], kh*depth)
	}
	j.tapOff = make([]int, kh)
	for r := range j.tapOff {
		j.tapOff[r] = r * g.dl[1] * g.out[2]
	}
}

// forwardTaps computes output rows [oh0, oh0+rows) of image n, group gi,
// on the caller's goroutine.
func (j *convJob) forwardTaps(ws *workspace, n, gi, oh0, rows int) {
	g := &j.g
	ow := g.out[2]
	plane := j.bandShape().rows * ow // one row of row patches: a channel and kernel column over the band's rows
	j.rowPatches(ws, n, gi, oh0, rows, plane)
	out := j.res[(n*g.o+gi*g.og)*g.outVol+oh0*ow:]
	sgemmTaps(rows*ow, &j.taps.packed[gi], ws.col, plane, j.tapOff, out, g.outVol)
}

// rowPatches writes into ws.col the row patches of output rows [oh0,
// oh0+rows) of image n, group gi: row c·kw + x holds, for every input row
// the tile reads, the input columns that kernel column x reads, plane floats
// a row (and gemm.TapsTile more after the last, which the product reads).
// With a width stride of one they are copied from X, their columns in the
// padding cleared once per convolution on each worker; otherwise from a band.
func (j *convJob) rowPatches(ws *workspace, n, gi, oh0, rows, plane int) {
	g := &j.g
	ow, kw := g.out[2], g.k[2]
	size := g.cg*kw*plane + gemm.TapsTile
	used := rows + (g.k[1]-1)*g.dl[1] // input rows the tile reads
	if g.s[2] != 1 {
		ws.col = grow(ws.col, size)
		bs := j.bandShape()
		band := j.fillBand(ws, n, gi, oh0, rows)
		for x := 0; x < kw; x++ {
			c := x * g.dl[2] // the kernel column's first padded column
			vec.CopyBlocks(ws.col[x*plane:], ow, kw*plane, band[c%g.s[2]*bs.phase+c/g.s[2]:], bs.width, bs.plane, g.cg, used, ow)
		}
		return
	}
	if ws.rowPatchesOf != j.seq || len(ws.col) < size {
		ws.col = grow(ws.col, size)
		clear(ws.col)
		ws.rowPatchesOf = j.seq
	}
	st := j.xst
	top := oh0 - g.p[1]
	lo, hi := max(0, -top), max(0, min(used, g.in[1]-top)) // the rows inside the image
	for x := 0; x < kw; x++ {
		shift := x*g.dl[2] - g.p[2] // output column w reads input column w + shift
		c0, c1 := max(0, -shift), min(ow, g.in[2]-shift)
		for b := 0; b < g.cg; b++ {
			r := ws.col[(b*kw+x)*plane:][:used*ow]
			clear(r[:lo*ow])
			clear(r[hi*ow:])
		}
		if c1 > c0 && hi > lo {
			src := j.xoff + n*st[0] + gi*g.cg*st[1] + (top+lo)*st[3] + c0 + shift
			vec.CopyBlocks(ws.col[x*plane+lo*ow+c0:], ow, kw*plane, j.x[src:], st[3], st[1], g.cg, hi-lo, c1-c0)
		}
	}
}
