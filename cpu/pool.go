package cpu

import (
	"fmt"
	"math"
	"runtime"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// poolJob is a pooling kernel in progress; tasks are (image, channel) planes.
type poolJob struct {
	k    *device.PoolKernel
	g    geom3
	x    []float32 // X's buffer
	xst  [5]int
	out  []float32 // Out's buffer from Out.Offset
	idx  []int32   // Indices' buffer, or nil
	ist  [5]int
	bad  badIndex
	wins [3][]window  // per dimension, the window of each output position
	cnt  [3][]float32 // per dimension, each window's share of the average divisor
	// byRows is set when maxForwardRows pools the planes; usedRows then
	// marks the input rows some window reads.
	byRows   bool
	usedRows []bool
	avg      *avgPlan // set when avgRows pools the planes (pool_avg.go)
}

// prepare computes every output position's window and divisor factor along
// each dimension once: a window is separable, so is its divisor.
func (j *poolJob) prepare() {
	g := &j.g
	for i := range 3 {
		j.wins[i] = make([]window, g.out[i])
		j.cnt[i] = make([]float32, g.out[i])
		for o := range g.out[i] {
			w := g.convWindow(i, o)
			n := w.k1 - w.k0
			switch {
			case j.k.Adaptive:
				w = g.adaptiveWindow(i, o)
				n = w.k1 - w.k0
			case j.k.CountIncludePad:
				n = g.padCount(i, o)
			}
			j.wins[i][o], j.cnt[i][o] = w, float32(n)
		}
	}
}

// plane pools plane p = n*C + c: forward, or backward into Out.
func (j *poolJob) plane(ws *workspace, p int) {
	if j.avg != nil {
		j.avgRows(ws, p)
		return
	}
	g := &j.g
	n, c := p/g.c, p%g.c
	xb := j.k.X.Offset + n*j.xst[0] + c*j.xst[1]
	ib := j.k.Indices.Offset + n*j.ist[0] + c*j.ist[1]
	switch {
	case j.k.Backward && j.k.Op == device.PoolMax:
		j.maxBackward(p, xb, ib)
	case j.k.Backward:
		j.avgBackward(p, xb)
	case j.byRows:
		var idx []int32
		if j.idx != nil { // a forward output: contiguous
			o := j.k.Indices.Offset + p*g.outVol
			idx = j.idx[o : o+g.outVol]
		}
		j.maxForwardRows(ws, j.out[p*g.outVol:(p+1)*g.outVol], idx, xb)
	case j.k.Op == device.PoolMax:
		j.maxForward(p, xb)
	default:
		j.avgForward(p, xb)
	}
}

// maxForward stores each window's maximum (the last NaN, else the first
// largest value, as PyTorch) and, with Indices, its input position. The scan is
// branch-free: each candidate is blended in under a compare mask, so the
// data never steers a branch.
func (j *poolJob) maxForward(p, xb int) {
	g := &j.g
	x, st := j.x, j.xst
	out := j.out[p*g.outVol : (p+1)*g.outVol]
	var idx []int32
	if j.idx != nil { // a forward output: contiguous
		o := j.k.Indices.Offset + p*g.outVol
		idx = j.idx[o : o+g.outVol]
	}
	if j.is2x2() && st[4] == 1 && st[3] >= 2*g.out[2] {
		vec.MaxPool2x2(out, idx, x[xb:], st[3], g.in[2], g.out[1], g.out[2])
		return
	}
	q := 0
	for _, w0 := range j.wins[0] {
		for _, w1 := range j.wins[1] {
			for _, w2 := range j.wins[2] {
				best, arg := float32(math.Inf(-1)), device.NoWinner
				for a := w0.k0; a < w0.k1; a++ {
					id := w0.first + a*w0.step
					for b := w1.k0; b < w1.k1; b++ {
						ih := w1.first + b*w1.step
						row := xb + id*st[2] + ih*st[3]
						pos := int32((id*g.in[1] + ih) * g.in[2])
						for c := w2.k0; c < w2.k1; c++ {
							iw := w2.first + c*w2.step
							v := x[row+iw*st[4]]
							m := vec.MaxMask(v, best) | uint32(arg>>31) // the first candidate always
							best = vec.Blend(m, v, best)
							arg = int32(m)&(pos+int32(iw)) | ^int32(m)&arg
						}
					}
				}
				out[q] = best
				if idx != nil {
					idx[q] = arg
				}
				q++
			}
		}
	}
}

// is2x2 reports whether the pooling is the common 2-D 2×2 window with
// stride 2, no padding or dilation.
func (j *poolJob) is2x2() bool {
	g := &j.g
	return !j.k.Adaptive && g.in[0] == 1 && g.k == [3]int{1, 2, 2} && g.s == [3]int{1, 2, 2} &&
		g.p == [3]int{} && g.dl == [3]int{1, 1, 1}
}

// avgForward stores each window's sum over its divisor.
func (j *poolJob) avgForward(p, xb int) {
	g := &j.g
	x, st := j.x, j.xst
	out := j.out[p*g.outVol : (p+1)*g.outVol]
	q := 0
	for o0, w0 := range j.wins[0] {
		for o1, w1 := range j.wins[1] {
			div01 := j.cnt[0][o0] * j.cnt[1][o1]
			for o2, w2 := range j.wins[2] {
				var sum float32
				for a := w0.k0; a < w0.k1; a++ {
					for b := w1.k0; b < w1.k1; b++ {
						row := xb + (w0.first+a*w0.step)*st[2] + (w1.first+b*w1.step)*st[3]
						for c := w2.k0; c < w2.k1; c++ {
							sum += x[row+(w2.first+c*w2.step)*st[4]]
						}
					}
				}
				v := float32(0)
				if div := div01 * j.cnt[2][o2]; div > 0 {
					v = sum / div
				}
				out[q] = v
				q++
			}
		}
	}
}

// maxBackward adds each output gradient to the input position its window's
// winner came from. For 2×2 pooling over planes with contiguous rows, each
// input position is written once, from its window's gradient or zero; an
// index outside its window (possible only in indices not made by the
// forward) sends the plane down the general scatter, where device.NoWinner
// adds nothing and any other index outside the plane is an error.
func (j *poolJob) maxBackward(p, xb, ib int) {
	g := &j.g
	dx := j.out[p*g.inVol : (p+1)*g.inVol]
	x, st, ist := j.x, j.xst, j.ist
	oh, ow := g.out[1], g.out[2]
	if j.is2x2() && st[4] == 1 && st[3] == ow && ist[4] == 1 && ist[3] == ow {
		if g.in[1] != 2*oh || g.in[2] != 2*ow { // rows or columns outside every window
			clear(dx)
		}
		if vec.MaxUnpool2x2(dx, x[xb:xb+g.outVol], j.idx[ib:ib+g.outVol], g.in[2], g.in[2], oh, ow) {
			return
		}
	}
	clear(dx)
	q := 0
	for o0 := range g.out[0] {
		for o1 := range g.out[1] {
			xo, io := xb+o0*st[2]+o1*st[3], ib+o0*ist[2]+o1*ist[3]
			for o2 := range g.out[2] {
				i := j.idx[io+o2*ist[4]]
				if i == device.NoWinner { // a window wholly in the padding
					q++
					continue
				}
				if uint(i) >= uint(len(dx)) {
					j.bad.set(p*g.outVol+q, i)
					return
				}
				dx[i] += x[xo+o2*st[4]]
				q++
			}
		}
	}
}

// avgBackward spreads each output gradient over its window.
func (j *poolJob) avgBackward(p, xb int) {
	g := &j.g
	dx := j.out[p*g.inVol : (p+1)*g.inVol]
	clear(dx)
	x, st := j.x, j.xst
	for o0, w0 := range j.wins[0] {
		for o1, w1 := range j.wins[1] {
			div01 := j.cnt[0][o0] * j.cnt[1][o1]
			xo := xb + o0*st[2] + o1*st[3]
			for o2, w2 := range j.wins[2] {
				div := div01 * j.cnt[2][o2]
				if div == 0 {
					continue
				}
				dy := x[xo+o2*st[4]] / div
				for a := w0.k0; a < w0.k1; a++ {
					for b := w1.k0; b < w1.k1; b++ {
						row := ((w0.first+a*w0.step)*g.in[1] + w1.first + b*w1.step) * g.in[2]
						for c := w2.k0; c < w2.k1; c++ {
							dx[row+w2.first+c*w2.step] += dy
						}
					}
				}
			}
		}
	}
}

// poolNow runs max or average pooling, forward or backward.
func (d *Device) poolNow(k *device.PoolKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	j := &poolJob{k: k, g: norm3(k.Geom, k.Adaptive)}
	xb, err := d.data(k.X.Buf)
	if err != nil {
		return err
	}
	ob, err := d.data(k.Out.Buf)
	if err != nil {
		return err
	}
	j.x, j.xst, j.out = asF32(xb), strides5(k.X), asF32(ob)[k.Out.Offset:]
	if k.Op == device.PoolMax && k.Indices.Buf != nil {
		ib, err := d.data(k.Indices.Buf)
		if err != nil {
			return err
		}
		j.idx, j.ist = asI32(ib), strides5(k.Indices)
	}
	j.prepare()
	if j.byRows = k.Op == device.PoolMax && j.rowsPoolable() && !j.is2x2(); j.byRows {
		j.markUsedRows()
	}
	j.avg = j.planAvgRows()
	planes := j.g.n * j.g.c
	cost := j.g.outVol*j.g.kVol + j.g.inVol
	if err := d.runTasks(planes, cost, func(ws *workspace, p int) { j.plane(ws, p) }); err != nil {
		return err
	}
	if p := j.bad.pos.Load(); p != 0 {
		return fmt.Errorf("cpu: pool: max pooling index %d at output position %d is outside the input plane of %d elements",
			j.bad.val.Load(), p-1, j.g.inVol)
	}
	return nil
}
