package cpu

import (
	"math"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// Max pooling by rows. A window's maximum is a fold (the last NaN, else
// the first largest value) over its taps in row-major order; the fold is
// associative, so folding each input row's taps along the width first and
// then those row maxima down the window's rows gives the same winner, bit
// for bit, and the same position. One fold step is device.OpMax(tap, best),
// so both passes run as whole-row vector folds (vec.Maximum, or
// vec.PoolMaxInto where the winners' taps are kept for the indices): along
// the width, at every column q of the window starts' span (the stride's
// multiples are read back at the end), each tap is the input row shifted by
// its offset.

// rowsPoolable reports whether maxForwardRows can pool j: a forward max
// pooling over 2-D windows (depth one) of an input whose columns are
// contiguous, with some output.
func (j *poolJob) rowsPoolable() bool {
	g := &j.g
	return !j.k.Backward && !j.k.Adaptive && j.xst[4] == 1 &&
		g.in[0] == 1 && g.out[0] == 1 && g.k[0] == 1 && g.p[0] == 0 && g.outVol > 0
}

// maxForwardRows pools the plane of X at xb into out (oh×ow, row-major) and,
// when idx is not nil, each output's input position into idx. ws.tmp holds
// each read input row's maxima along the width at the window starts'
// columns q = 0..span-1, then one output row's maxima before it is
// subsampled by the stride; with indices, ws.taps holds the winning taps of
// both folds alike.
func (j *poolJob) maxForwardRows(ws *workspace, out []float32, idx []int32, xb int) {
	g := &j.g
	ih, ow, s := g.in[1], g.out[2], g.s[2]
	span := (ow-1)*s + 1
	ws.tmp = grow(ws.tmp, (ih+1)*span)
	h, row := ws.tmp[:ih*span], ws.tmp[ih*span:(ih+1)*span]
	var ht, rowTaps []int32
	if idx != nil {
		ws.taps = grow(ws.taps, (ih+1)*span)
		ht, rowTaps = ws.taps[:ih*span], ws.taps[ih*span:(ih+1)*span]
	}
	for r := 0; r < ih; r++ {
		if !j.usedRows[r] {
			continue
		}
		var tr []int32
		if ht != nil {
			tr = ht[r*span : (r+1)*span]
		}
		j.foldRowWidth(h[r*span:(r+1)*span], tr, xb+r*j.xst[3])
	}
	for o, w := range j.wins[1] {
		dst := out[o*ow : (o+1)*ow]
		var dstIdx []int32
		if idx != nil {
			dstIdx = idx[o*ow : (o+1)*ow]
		}
		if w.k0 >= w.k1 { // the window lies in the padding
			for i := range dst {
				dst[i] = float32(math.Inf(-1))
			}
			for i := range dstIdx {
				dstIdx[i] = device.NoWinner
			}
			continue
		}
		acc := row
		if s == 1 {
			acc = dst
		}
		copy(acc, h[(w.first+w.k0*w.step)*span:][:span])
		if idx == nil {
			for b := w.k0 + 1; b < w.k1; b++ {
				vec.Maximum(acc, h[(w.first+b*w.step)*span:][:span], acc)
			}
			if s > 1 {
				for i := range dst {
					dst[i] = acc[i*s]
				}
			}
			continue
		}
		if w.k0 == 0 {
			clear(rowTaps)
		} else {
			for i := range rowTaps {
				rowTaps[i] = int32(w.k0)
			}
		}
		for b := w.k0 + 1; b < w.k1; b++ {
			vec.PoolMaxInto(acc, rowTaps, h[(w.first+b*w.step)*span:][:span], int32(b))
		}
		j.rowWinners(dst, dstIdx, acc, rowTaps, ht, w, span)
	}
}

// foldRowWidth folds one input row, starting at X's element base, along the
// width into hr: hr[q] is the winner of the window starting at column q-p,
// and tr[q] (when tr is not nil) its tap, or -1 where no tap is inside the
// row. Columns [qlo, qhi) see every tap inside the input and fold whole
// shifted rows; the columns around them, in the padding's reach, fold their
// taps one by one.
func (j *poolJob) foldRowWidth(hr []float32, tr []int32, base int) {
	g := &j.g
	x, iw, span := j.x, g.in[2], len(hr)
	k, p, dl := g.k[2], g.p[2], g.dl[2]
	qlo := min(p, span)
	qhi := max(qlo, min(span, iw+p-(k-1)*dl))
	if mid := hr[qlo:qhi]; len(mid) > 0 {
		copy(mid, x[base+qlo-p:][:len(mid)])
		if tr == nil {
			for c := 1; c < k; c++ {
				vec.Maximum(mid, x[base+qlo-p+c*dl:][:len(mid)], mid)
			}
		} else {
			clear(tr[qlo:qhi])
			for c := 1; c < k; c++ {
				vec.PoolMaxInto(mid, tr[qlo:qhi], x[base+qlo-p+c*dl:][:len(mid)], int32(c))
			}
		}
	}
	for q := 0; q < span; q++ {
		if q == qlo {
			q = qhi
			if q == span {
				break
			}
		}
		k0, k1 := tapsInside(q-p, dl, k, iw)
		var tap int32
		hr[q], tap = foldMax(x, base+q-p, dl, k0, k1)
		if tr != nil {
			tr[q] = tap
		}
	}
}

// rowWinners writes one output row: each output i's maximum acc[i·s] and
// its input position, from the window row rowTaps[i·s] that won and that
// row's winning tap along the width.
func (j *poolJob) rowWinners(dst []float32, dstIdx []int32, acc []float32, rowTaps, ht []int32, w window, span int) {
	g := &j.g
	iw, s, p, dl := g.in[2], g.s[2], g.p[2], g.dl[2]
	dstIdx = dstIdx[:len(dst)]
	for i := range dst {
		q := i * s
		r := w.first + int(rowTaps[q])*w.step
		dst[i] = acc[q]
		pos := int32(device.NoWinner)
		if tap := ht[r*span+q]; tap >= 0 {
			pos = int32(r*iw + q - p + int(tap)*dl)
		}
		dstIdx[i] = pos
	}
}

// foldMax returns the winner of x[base+c*step] for taps c in [k0, k1) and
// its tap, or -Inf and -1 when there are none.
func foldMax(x []float32, base, step, k0, k1 int) (float32, int32) {
	if k0 >= k1 {
		return float32(math.Inf(-1)), -1
	}
	best, tap := x[base+k0*step], int32(k0)
	for c := k0 + 1; c < k1; c++ {
		v := x[base+c*step]
		m := vec.MaxMask(v, best)
		best = vec.Blend(m, v, best)
		tap = int32(m)&int32(c) | ^int32(m)&tap
	}
	return best, tap
}

// markUsedRows records which input rows some window reads.
func (j *poolJob) markUsedRows() {
	j.usedRows = make([]bool, j.g.in[1])
	for _, w := range j.wins[1] {
		for b := w.k0; b < w.k1; b++ {
			j.usedRows[w.first+b*w.step] = true
		}
	}
}
