package cpu

import (
	"math"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
)

// Max pooling without indices, by rows. A window's maximum is a fold (the
// last NaN, else the first largest value) over its taps in row-major order;
// the fold is associative, so folding each input row's taps along the width
// first and then those row maxima down the window's rows gives the same
// winner, bit for bit. One fold step is device.OpMax(tap, best), so both
// passes run as vector Maximum over whole rows: along the width, at every
// column q of the window starts' span (the stride's multiples are read
// back at the end), each tap is the input row shifted by its offset.

// rowsPoolable reports whether maxForwardRows can pool j: a forward max
// pooling without indices over 2-D windows (depth one) of an input whose
// columns are contiguous, with some output.
func (j *poolJob) rowsPoolable() bool {
	g := &j.g
	return j.idx == nil && !j.k.Backward && !j.k.Adaptive && j.xst[4] == 1 &&
		g.in[0] == 1 && g.out[0] == 1 && g.k[0] == 1 && g.p[0] == 0 && g.outVol > 0
}

// maxForwardRows pools the plane of X at xb into out (oh×ow, row-major).
// ws.tmp holds each read input row's maxima along the width at the window
// starts' columns q = 0..span-1, then one output row's maxima before it is
// subsampled by the stride.
func (j *poolJob) maxForwardRows(ws *workspace, out []float32, xb int) {
	g := &j.g
	x, st := j.x, j.xst
	ih, iw, ow, s := g.in[1], g.in[2], g.out[2], g.s[2]
	k, p, dl := g.k[2], g.p[2], g.dl[2]
	span := (ow-1)*s + 1
	ws.tmp = grow(ws.tmp, (ih+1)*span)
	h, row := ws.tmp[:ih*span], ws.tmp[ih*span:(ih+1)*span]
	// Columns [qlo, qhi) see every tap inside the input; the columns
	// around them, in the padding's reach, fold their taps one by one.
	qlo := min(p, span)
	qhi := max(qlo, min(span, iw+p-(k-1)*dl))
	for r := 0; r < ih; r++ {
		if !j.usedRows[r] {
			continue
		}
		hr := h[r*span : (r+1)*span]
		base := xb + r*st[3]
		if mid := hr[qlo:qhi]; len(mid) > 0 {
			copy(mid, x[base+qlo-p:][:len(mid)])
			for c := 1; c < k; c++ {
				vec.Maximum(mid, x[base+qlo-p+c*dl:][:len(mid)], mid)
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
			hr[q] = foldMax(x, base+q-p, dl, k0, k1)
		}
	}
	for o, w := range j.wins[1] {
		dst := out[o*ow : (o+1)*ow]
		if w.k0 >= w.k1 { // the window lies in the padding
			for i := range dst {
				dst[i] = float32(math.Inf(-1))
			}
			continue
		}
		acc := row
		if s == 1 {
			acc = dst
		}
		copy(acc, h[(w.first+w.k0*w.step)*span:][:span])
		for b := w.k0 + 1; b < w.k1; b++ {
			vec.Maximum(acc, h[(w.first+b*w.step)*span:][:span], acc)
		}
		if s > 1 {
			for i := range dst {
				dst[i] = acc[i*s]
			}
		}
	}
}

// foldMax returns the winner of x[base+c*step] for taps c in [k0, k1), or
// -Inf when there are none.
func foldMax(x []float32, base, step, k0, k1 int) float32 {
	if k0 >= k1 {
		return float32(math.Inf(-1))
	}
	best := x[base+k0*step]
	for c := k0 + 1; c < k1; c++ {
		v := x[base+c*step]
		best = vec.Blend(vec.MaxMask(v, best), v, best)
	}
	return best
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
