package cpu

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// poolJob is a pooling kernel in progress; tasks are (image, channel) planes.
type poolJob struct {
	k        *device.PoolKernel
	g        geom3
	x        []float32 // X's buffer
	xst      [5]int
	out      []float32 // Out's buffer from Out.Offset
	idx      []int32   // Indices' buffer, or nil
	ist      [5]int
	bad      badIndex
	adaptive bool
}

// window returns output position o's window along dimension i.
func (j *poolJob) window(i, o int) window {
	if j.adaptive {
		return j.g.adaptiveWindow(i, o)
	}
	return j.g.convWindow(i, o)
}

// divisor is the average pooling divisor of the window at od, oh, ow.
func (j *poolJob) divisor(o [3]int, w [3]window) float32 {
	n := 1
	for i := range w {
		if j.k.CountIncludePad && !j.adaptive {
			n *= j.g.padCount(i, o[i])
		} else {
			n *= w[i].k1 - w[i].k0
		}
	}
	return float32(n)
}

// plane pools plane p = n*C + c: forward, or backward into Out.
func (j *poolJob) plane(p int) {
	g := &j.g
	n, c := p/g.c, p%g.c
	xb := j.k.X.Offset + n*j.xst[0] + c*j.xst[1]
	ib := j.k.Indices.Offset + n*j.ist[0] + c*j.ist[1]
	inPlane := g.inVol
	if j.k.Backward {
		clear(j.out[p*inPlane : (p+1)*inPlane])
	}
	var o [3]int
	for o[0] = 0; o[0] < g.out[0]; o[0]++ {
		for o[1] = 0; o[1] < g.out[1]; o[1]++ {
			for o[2] = 0; o[2] < g.out[2]; o[2]++ {
				w := [3]window{j.window(0, o[0]), j.window(1, o[1]), j.window(2, o[2])}
				xo := xb + o[0]*j.xst[2] + o[1]*j.xst[3] + o[2]*j.xst[4]
				io := ib + o[0]*j.ist[2] + o[1]*j.ist[3] + o[2]*j.ist[4]
				q := (o[0]*g.out[1]+o[1])*g.out[2] + o[2]
				if j.k.Backward {
					j.backward(p, q, j.x[xo], io, o, w)
				} else {
					j.out[p*g.outVol+q] = j.forward(xb, io, o, w)
				}
			}
		}
	}
}

// forward returns the pooled value of one window and, for max pooling with
// Indices, stores the winner's input position.
func (j *poolJob) forward(xb, io int, o [3]int, w [3]window) float32 {
	g := &j.g
	isMax := j.k.Op == device.PoolMax
	best, arg, sum, seen := float32(math.Inf(-1)), -1, float32(0), false
	for a := w[0].k0; a < w[0].k1; a++ {
		id := w[0].first + a*w[0].step
		for b := w[1].k0; b < w[1].k1; b++ {
			ih := w[1].first + b*w[1].step
			for c := w[2].k0; c < w[2].k1; c++ {
				iw := w[2].first + c*w[2].step
				v := j.x[xb+id*j.xst[2]+ih*j.xst[3]+iw*j.xst[4]]
				switch {
				case !isMax:
					sum += v
				case !seen || v > best || (v != v && best == best):
					best, arg, seen = v, (id*g.in[1]+ih)*g.in[2]+iw, true
				}
			}
		}
	}
	if !isMax {
		if div := j.divisor(o, w); div > 0 {
			return sum / div
		}
		return 0
	}
	if j.idx != nil {
		j.idx[io] = int32(arg)
	}
	return best
}

// backward adds one output gradient dy to the input gradient of plane p.
func (j *poolJob) backward(p, q int, dy float32, io int, o [3]int, w [3]window) {
	g := &j.g
	dx := j.out[p*g.inVol : (p+1)*g.inVol]
	if j.k.Op == device.PoolMax {
		i := j.idx[io]
		if i < 0 || int(i) >= g.inVol {
			j.bad.set(p*g.outVol+q, i)
			return
		}
		dx[i] += dy
		return
	}
	div := j.divisor(o, w)
	if div == 0 {
		return
	}
	dy /= div
	for a := w[0].k0; a < w[0].k1; a++ {
		id := w[0].first + a*w[0].step
		for b := w[1].k0; b < w[1].k1; b++ {
			ih := w[1].first + b*w[1].step
			for c := w[2].k0; c < w[2].k1; c++ {
				dx[(id*g.in[1]+ih)*g.in[2]+w[2].first+c*w[2].step] += dy
			}
		}
	}
}

// Pool runs max or average pooling, forward or backward.
func (d *Device) Pool(k *device.PoolKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	j := &poolJob{k: k, adaptive: k.Adaptive, g: norm3(k.Geom, k.Adaptive)}
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
	planes := j.g.n * j.g.c
	cost := j.g.outVol*j.g.kVol + j.g.inVol
	if err := d.runTasks(planes, cost, func(_ *workspace, p int) { j.plane(p) }); err != nil {
		return err
	}
	if p := j.bad.pos.Load(); p != 0 {
		return fmt.Errorf("cpu: pool: max pooling index %d at output position %d is outside the input plane of %d elements",
			j.bad.val.Load(), p-1, j.g.inVol)
	}
	return nil
}
