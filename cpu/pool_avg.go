package cpu

import (
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// Average pooling by rows. A 2-D window's sum is separable: summing the
// window's rows down the height and then those column sums along the width
// gives every output's sum (in another order than the window-by-window loop,
// so equal to float32 rounding). Along an axis of regular windows (output o
// reads the inputs o*s-p+b for taps b < k, clipped to the input), tap b of
// a run of consecutive outputs is one strided run of input rows, or one
// shifted run of columns, so each pass is k vector adds over whole planes
// (vec.AddRows), each clipped to the outputs whose tap lies inside: the
// padding needs no scalar edges. The backward is the transpose, the same
// runs added the other way.

// avgAxis is one spatial axis of an average pooling's windows: regular
// windows of k taps s apart starting at o*s-p, or, for adaptive pooling
// whose output size does not divide the input size, the listed windows.
type avgAxis struct {
	k, s, p int
	in, out int
	wins    []window // the irregular windows, else nil
	// For regular windows: taps[b] holds the outputs [o0, o1) whose tap b
	// lies inside the input; full is a tap inside for every output, or -1
	// (a pass copies it first instead of clearing its destination); starts,
	// for strides above two, has a window at every start.
	taps   [][2]int
	full   int
	starts *avgAxis
}

// avgPlan is how avgRows pools every plane of a job.
type avgPlan struct {
	h, w   avgAxis
	ld     int       // X's row stride in the forward
	divs   []float32 // each output's divisor, oh×ow row-major
	scale  float32   // 1/divisor when all are one power of two, else 0
	global bool      // the one window covers the whole plane
	zeros  []float32 // a plane of zeros, for global pooling's backward
	// For 2×2 windows tiling the plane: in the forward, flat2x2 is set when
	// X's planes are contiguous (see sum2x2); in the backward, corner names
	// each window's top-left input (see spread2x2).
	flat2x2 bool
	corner  []int32
	// even is set when X's planes lie step apart: plane p's base needs no
	// division by C (which costs as much as a small plane's sum).
	even bool
	step int
}

// planAvgRows returns the plan for pooling j's planes by rows, or nil when
// j is not an average pooling of 2-D windows (depth one, no dilation) with
// some output and no zero divisor, or its forward input's rows are not
// contiguous runs of columns at least a row apart.
func (j *poolJob) planAvgRows() *avgPlan {
	g, st := &j.g, j.xst
	if j.k.Op != device.PoolAvg || g.in[0] != 1 || g.out[0] != 1 || g.k[0] != 1 || g.p[0] != 0 ||
		g.dl != [3]int{1, 1, 1} || g.outVol == 0 {
		return nil
	}
	ld := st[3]
	if g.in[1] == 1 {
		ld = g.in[2] // one row: its stride is never used
	}
	if !j.k.Backward && (st[4] != 1 && g.in[2] > 1 || ld < g.in[2]) {
		return nil
	}
	a := &avgPlan{h: j.avgAxis(1), w: j.avgAxis(2), ld: ld, divs: make([]float32, g.outVol)}
	for o1, c1 := range j.cnt[1] {
		for o2, c2 := range j.cnt[2] {
			d := c1 * c2
			if d <= 0 {
				return nil
			}
			a.divs[o1*g.out[2]+o2] = d
		}
	}
	if d := a.divs[0]; slices.Max(a.divs) == d && slices.Min(a.divs) == d {
		if m, _ := math.Frexp(float64(d)); m == 0.5 {
			a.scale = 1 / d // exact: multiplying by it is dividing by d
		}
	}
	a.step, a.even = planeStep(g.n, g.c, st[0], st[1])
	a.global = g.outVol == 1 && covers(j.wins[1][0], g.in[1]) && covers(j.wins[2][0], g.in[2])
	if a.global && j.k.Backward {
		a.zeros = make([]float32, g.inVol)
	}
	tiles2x2 := a.h.tiles() && a.w.tiles() && a.h.k == 2 && a.w.k == 2 &&
		g.in[1] == 2*g.out[1] && g.in[2] == 2*g.out[2]
	a.flat2x2 = tiles2x2 && !j.k.Backward && ld == g.in[2]
	if tiles2x2 && j.k.Backward {
		a.corner = make([]int32, g.outVol)
		for r := range g.out[1] {
			for c := range g.out[2] {
				a.corner[r*g.out[2]+c] = int32(2*r*g.in[2] + 2*c)
			}
		}
	}
	return a
}

// planeStep returns the distance between consecutive planes n*C+c of a
// view with strides st0 and st1 over N×C planes, if it is one distance.
func planeStep(n, c, st0, st1 int) (step int, even bool) {
	switch {
	case c == 1:
		return st0, true
	case n == 1 || st0 == c*st1:
		return st1, true
	}
	return 0, false
}

// avgAxis describes j's windows along spatial dimension i; adaptive windows
// of an input the output divides are regular ones (k = s = in/out).
func (j *poolJob) avgAxis(i int) avgAxis {
	g := &j.g
	in, out := g.in[i], g.out[i]
	switch {
	case !j.k.Adaptive:
		return regularAxis(g.k[i], g.s[i], g.p[i], in, out)
	case in%out == 0:
		return regularAxis(in/out, in/out, 0, in, out)
	}
	return avgAxis{in: in, out: out, wins: j.wins[i]}
}

// regularAxis returns the axis of out windows of k taps s apart, starting
// at o*s-p, over an input of in, with its taps' output ranges.
func regularAxis(k, s, p, in, out int) avgAxis {
	a := avgAxis{k: k, s: s, p: p, in: in, out: out, taps: make([][2]int, k), full: -1}
	for b := range k {
		o0, o1 := a.tapRange(b)
		a.taps[b] = [2]int{o0, o1}
		if a.full < 0 && o0 == 0 && o1 == out {
			a.full = b
		}
	}
	if s > 2 {
		all := regularAxis(k, 1, p, in, (out-1)*s+1)
		a.starts = &all
	}
	return a
}

// covers reports whether window w takes every position of an input of n.
func covers(w window, n int) bool {
	return w.step == 1 && w.first+w.k0 == 0 && w.first+w.k1 == n
}

// identity reports whether every output of a is its input at the same
// position, so a pass along it would copy.
func (a *avgAxis) identity() bool {
	return a.wins == nil && a.k == 1 && a.s == 1 && a.p == 0
}

// tiles reports whether a's windows are regular and disjoint, back to back
// from the first input: each input lies in at most one window.
func (a *avgAxis) tiles() bool {
	return a.wins == nil && a.k == a.s && a.p == 0
}

// tap returns the i-th tap a pass over regular axis a runs: the full tap
// first when there is one, then the others in turn.
func (a *avgAxis) tap(i int) int {
	if a.full > 0 {
		if i += a.full; i >= a.k {
			i -= a.k
		}
	}
	return i
}

// tapRange returns the outputs [o0, o1) of regular axis a whose tap b, at
// input o*s-p+b, lies inside the input.
func (a *avgAxis) tapRange(b int) (o0, o1 int) {
	hi := a.in - 1 + a.p - b // the last tap inside: o*s <= hi
	if hi < 0 {
		return 0, 0
	}
	o1 = min(a.out, hi/a.s+1)
	if lo := a.p - b; lo > 0 {
		o0 = min((lo+a.s-1)/a.s, o1)
	}
	return o0, o1
}

// divide sets dst to src over divs (dst, src and divs of one length), plus
// +0: the passes copy their first tap rather than add it to zero, so a sum
// of −0 alone would otherwise stay −0 where PyTorch's sums, which start from
// zero, give +0 (adding +0 changes no other value).
func (a *avgPlan) divide(dst, src, divs []float32) {
	if a.scale != 0 {
		vec.MulScalar(dst, src, a.scale)
	} else {
		vec.Div(dst, src, divs)
	}
	vec.AddScalar(dst, dst, 0)
}

// avgRows pools plane p by rows: forward, or backward into Out.
func (j *poolJob) avgRows(ws *workspace, p int) {
	g := &j.g
	xb := j.k.X.Offset + p*j.avg.step
	if !j.avg.even {
		xb = j.k.X.Offset + p/g.c*j.xst[0] + p%g.c*j.xst[1]
	}
	if j.k.Backward {
		j.avgBackwardRows(ws, j.out[p*g.inVol:(p+1)*g.inVol], xb)
		return
	}
	j.avgForwardRows(ws, j.out[p*g.outVol:(p+1)*g.outVol], xb)
}

// avgForwardRows stores the averages of the X plane at xb in out (oh×ow):
// the window sums down the height (into ws.tmp, unless the height pass
// would copy), then along the width into out, then divided by the
// divisors.
func (j *poolJob) avgForwardRows(ws *workspace, out []float32, xb int) {
	a := j.avg
	if a.global {
		out[0] = j.planeSum(xb)/a.divs[0] + 0 // +0 for −0, as divide
		return
	}
	if a.flat2x2 {
		j.sum2x2(ws, out, xb)
		a.divide(out, out, a.divs)
		return
	}
	iw, oh := a.w.in, a.h.out
	cols, lc := j.x[xb:], a.ld // the column sums
	down := 0
	if !a.h.identity() {
		down = oh * iw
	}
	ws.tmp = grow(ws.tmp, down+oh*a.w.acrossScratch())
	if down > 0 {
		cols, lc = ws.tmp[:down], iw
		sumDown(cols, j.x[xb:], a.ld, &a.h, iw)
	}
	sumAcross(out, cols, lc, oh, &a.w, ws.tmp[down:])
	a.divide(out, out, a.divs)
}

// sum2x2 sets out to the sums of the 2×2 windows tiling the contiguous X
// plane at xb, in whole-plane passes: each input plus the one below it,
// those sums split by column parity, then the even and odd columns of
// the even rows added.
func (j *poolJob) sum2x2(ws *workspace, out []float32, xb int) {
	iw, ow, oh := j.avg.w.in, j.avg.w.out, j.avg.h.out
	n := (2*oh - 1) * iw // the pair sums start on every row but the last
	ws.tmp = grow(ws.tmp, 2*n)
	down, even, odd := ws.tmp[:n], ws.tmp[n:n+n/2], ws.tmp[n+n/2:2*n]
	x := j.x[xb : xb+n+iw]
	vec.Add(down, x[:n], x[iw:])
	vec.SplitPairs(even, odd, down)
	vec.CopyRows(out, ow, even, 2*ow, oh, ow)
	vec.AddRows(out, ow, odd, 2*ow, oh, ow)
}

// planeSum returns the sum of the X plane at xb, one vector sum per plane,
// or per row when its rows are apart.
func (j *poolJob) planeSum(xb int) float32 {
	ih, iw, ld := j.avg.h.in, j.avg.w.in, j.avg.ld
	if ld == iw {
		return float32(vec.Sum(j.x[xb : xb+ih*iw]))
	}
	var s float64
	for r := range ih {
		s += vec.Sum(j.x[xb+r*ld:][:iw])
	}
	return float32(s)
}

// sumDown sets dst (a.out rows of n) to the sums of the windows of a over
// src's rows (n wide, lds apart).
func sumDown(dst, src []float32, lds int, a *avgAxis, n int) {
	if a.wins != nil {
		for o, w := range a.wins {
			d := dst[o*n : (o+1)*n]
			copy(d, src[w.first*lds:][:n])
			for r := w.first + 1; r < w.first+w.k1; r++ {
				vec.Add(d, d, src[r*lds:][:n])
			}
		}
		return
	}
	f := a.full
	if f < 0 {
		clear(dst)
	}
	for i := range a.k {
		b := a.tap(i)
		if o0, o1 := a.taps[b][0], a.taps[b][1]; o0 < o1 {
			addRows(b == f, dst[o0*n:], n, src[(o0*a.s-a.p+b)*lds:], a.s*lds, o1-o0, n)
		}
	}
}

// acrossScratch returns the scratch sumAcross needs per row along a.
func (a *avgAxis) acrossScratch() int {
	switch {
	case a.wins != nil || a.s == 1:
		return 0
	case a.s == 2:
		return a.in
	}
	return a.starts.out
}

// sumAcross sets dst (rows of a.out, back to back) to the sums of the
// windows of a along each of src's rows (a.in wide, lds apart), with tmp
// (rows × a.acrossScratch()) for strided windows.
func sumAcross(dst, src []float32, lds, rows int, a *avgAxis, tmp []float32) {
	switch {
	case a.wins != nil:
		sumIrregular(dst, src, lds, rows, a)
	case a.s == 1:
		sumShifted(dst, src, lds, rows, a)
	case a.s == 2:
		sumPairs(dst, src, lds, rows, a, tmp)
	default:
		all := a.starts
		at := tmp[:rows*all.out]
		sumShifted(at, src, lds, rows, all)
		for r := range rows {
			d, h := dst[r*a.out:(r+1)*a.out], at[r*all.out:]
			for o := range d {
				d[o] = h[o*a.s]
			}
		}
	}
}

// sumShifted is sumAcross for windows of stride one: tap c of every
// output is src shifted by c-p.
func sumShifted(dst, src []float32, lds, rows int, a *avgAxis) {
	f := a.full
	if f < 0 {
		clear(dst)
	}
	for i := range a.k {
		c := a.tap(i)
		if q0, q1 := a.taps[c][0], a.taps[c][1]; q0 < q1 {
			addRows(c == f, dst[q0:], a.out, src[q0-a.p+c:], lds, rows, q1-q0)
		}
	}
}

// sumPairs is sumAcross for windows of stride two: src's rows split into
// their even and odd columns (in tmp), tap c of every output is one of
// the halves shifted by floor((c-p)/2).
func sumPairs(dst, src []float32, lds, rows int, a *avgAxis, tmp []float32) {
	in := a.in
	ne, no := (in+1)/2, in/2
	even, odd := tmp[:rows*ne], tmp[rows*ne:rows*in]
	if rows == 1 || lds == in && in%2 == 0 {
		vec.SplitPairs(even, odd, src[:rows*in])
	} else {
		for r := range rows {
			vec.SplitPairs(even[r*ne:(r+1)*ne], odd[r*no:(r+1)*no], src[r*lds:][:in])
		}
	}
	f := a.full
	if f < 0 {
		clear(dst)
	}
	for i := range a.k {
		c := a.tap(i)
		d := c - a.p
		half, ld := even, ne
		if d&1 != 0 {
			half, ld = odd, no
		}
		if o0, o1 := a.taps[c][0], a.taps[c][1]; o0 < o1 {
			addRows(c == f, dst[o0:], a.out, half[o0+d>>1:], ld, rows, o1-o0)
		}
	}
}

// sumIrregular sets dst (rows of a.out) to the sums of a's listed windows
// along each of src's rows, one output at a time.
func sumIrregular(dst, src []float32, lds, rows int, a *avgAxis) {
	for r := range rows {
		s, d := src[r*lds:], dst[r*a.out:(r+1)*a.out]
		for o, w := range a.wins {
			var t float32
			for _, v := range s[w.first+w.k0 : w.first+w.k1] {
				t += v
			}
			d[o] = t
		}
	}
}

// avgBackwardRows writes the input gradient dx (ih×iw) of the output
// gradient plane of X at xb: each output gradient over its divisor, spread
// along the width (into ws.tmp, or straight into dx when the height pass
// would copy) and then down the height.
func (j *poolJob) avgBackwardRows(ws *workspace, dx []float32, xb int) {
	a := j.avg
	if a.global { // 0 + dy, as the scalar path's cleared sums give (+0 for -0)
		vec.AddScalar(dx, a.zeros, j.x[xb]/a.divs[0])
		return
	}
	if a.corner != nil {
		j.spread2x2(ws, dx, xb)
		return
	}
	iw, oh, ow := a.w.in, a.h.out, a.w.out
	across := 0
	if !a.h.identity() {
		across = oh * iw
	}
	ws.tmp = grow(ws.tmp, oh*ow+across)
	dy := ws.tmp[:oh*ow]
	j.scaledGrad(dy, xb)
	if across == 0 {
		spreadAcross(dx, dy, oh, &a.w)
		return
	}
	rows := ws.tmp[oh*ow : oh*ow+across]
	spreadAcross(rows, dy, oh, &a.w)
	spreadDown(dx, rows, &a.h, iw)
}

// spread2x2 is avgBackwardRows for 2×2 windows tiling the plane, in
// whole-plane passes: each scaled gradient goes to its window's top-left
// input and zero to the other three (vec.MaxUnpool2x2 with every index at
// the corner), then each input adds its left neighbour, then its upper
// one, so the gradient fills the window (adding only zeros to it).
func (j *poolJob) spread2x2(ws *workspace, dx []float32, xb int) {
	a := j.avg
	iw, n, q := a.w.in, len(dx), a.h.out*a.w.out
	ws.tmp = grow(ws.tmp, q+n)
	dy, y := ws.tmp[:q], ws.tmp[q:q+n]
	j.scaledGrad(dy, xb)
	vec.MaxUnpool2x2(dx, dy, a.corner, iw, iw, a.h.out, a.w.out) // true: each index is in its window
	y[0] = dx[0]
	vec.Add(y[1:], dx[1:], dx[:n-1])
	copy(dx[:iw], y[:iw])
	vec.Add(dx[iw:], y[iw:], y[:n-iw])
}

// scaledGrad sets dy (oh×ow) to the output gradient plane of X at xb over
// each output's divisor.
func (j *poolJob) scaledGrad(dy []float32, xb int) {
	a, x, st := j.avg, j.x, j.xst
	divs, oh, ow := a.divs, a.h.out, a.w.out
	switch {
	case (st[4] == 1 || ow == 1) && (st[3] == ow || oh == 1):
		a.divide(dy, x[xb:xb+oh*ow], divs)
	case st[4] == 1 || ow == 1:
		for o := range oh {
			a.divide(dy[o*ow:(o+1)*ow], x[xb+o*st[3]:][:ow], divs[o*ow:(o+1)*ow])
		}
	default:
		for o1 := range oh {
			for o2 := range ow {
				dy[o1*ow+o2] = x[xb+o1*st[3]+o2*st[4]]
			}
		}
		a.divide(dy, dy, divs)
	}
}

// spreadAcross sets dst (rows of a.in, back to back) to the transpose of
// sumAcross: each input gets the sum of src's values (rows of a.out) whose
// windows hold it. Disjoint windows repeat each value; windows of stride
// one add src shifted by each tap; others add one value at a time.
func spreadAcross(dst, src []float32, rows int, a *avgAxis) {
	in, out := a.in, a.out
	switch {
	case a.tiles() && in == out*a.k:
		vec.Repeat(dst, src, a.k)
	case a.tiles():
		for r := range rows {
			d := dst[r*in : (r+1)*in]
			vec.Repeat(d[:out*a.k], src[r*out:(r+1)*out], a.k)
			clear(d[out*a.k:])
		}
	case a.wins == nil && a.s == 1:
		f := a.full
		if f >= 0 && (f != a.p || in != out) {
			f = -1 // the tap does not set every input
		}
		if f < 0 {
			clear(dst)
		}
		for i := range a.k {
			c := a.tap(i)
			if q0, q1 := a.taps[c][0], a.taps[c][1]; q0 < q1 {
				addRows(c == f, dst[q0-a.p+c:], in, src[q0:], out, rows, q1-q0)
			}
		}
	default:
		clear(dst)
		for r := range rows {
			d, s := dst[r*in:(r+1)*in], src[r*out:(r+1)*out]
			for o, v := range s {
				w := a.window(o)
				for i := w.first + w.k0; i < w.first+w.k1; i++ {
					d[i] += v
				}
			}
		}
	}
}

// window returns output o's window along a, clipped to the input.
func (a *avgAxis) window(o int) window {
	if a.wins != nil {
		return a.wins[o]
	}
	first := o*a.s - a.p
	k0, k1 := tapsInside(first, 1, a.k, a.in)
	return window{first: first, step: 1, k0: k0, k1: k1}
}

// spreadDown sets dst (a.in rows of n) to the transpose of sumDown: each
// input row gets the sum of src's rows (a.out rows of n) whose windows hold
// it. Disjoint windows copy each source row to their rows.
func spreadDown(dst, src []float32, a *avgAxis, n int) {
	switch {
	case a.tiles():
		for b := range a.k {
			vec.CopyRows(dst[b*n:], a.k*n, src, n, a.out, n)
		}
		clear(dst[a.out*a.k*n:])
	case a.wins != nil:
		clear(dst)
		for o, w := range a.wins {
			s := src[o*n : (o+1)*n]
			for r := w.first; r < w.first+w.k1; r++ {
				d := dst[r*n : (r+1)*n]
				vec.Add(d, d, s)
			}
		}
	default:
		f := a.full
		if f >= 0 && (f != a.p || a.s != 1 || a.in != a.out) {
			f = -1 // the tap does not set every input row
		}
		if f < 0 {
			clear(dst)
		}
		for i := range a.k {
			b := a.tap(i)
			if o0, o1 := a.taps[b][0], a.taps[b][1]; o0 < o1 {
				addRows(b == f, dst[(o0*a.s-a.p+b)*n:], a.s*n, src[o0*n:], n, o1-o0, n)
			}
		}
	}
}

// addRows adds a rows×cols block of src (rows lds apart) into dst (rows
// ldd apart), or with set copies it; blocks whose rows lie back to back
// go as one long row, saving each row's tail.
func addRows(set bool, dst []float32, ldd int, src []float32, lds, rows, cols int) {
	if rows == 1 || ldd == cols && lds == cols {
		n := rows * cols
		if set {
			copy(dst[:n], src[:n])
		} else {
			vec.Add(dst[:n], dst[:n], src[:n])
		}
		return
	}
	if set {
		vec.CopyRows(dst, ldd, src, lds, rows, cols)
	} else {
		vec.AddRows(dst, ldd, src, lds, rows, cols)
	}
}
