package cpu

import (
	"runtime"
	"sync"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// convJob is a convolution in progress, lowered to im2col + sgemm.
type convJob struct {
	g      geom3
	cgk    int       // Cg * kVol: the reduction length of the forward product
	tile   int       // output positions per patch matrix
	x      []float32 // the image operand's buffer (X), for im2col
	xoff   int
	xst    [5]int
	direct bool      // 1×1 window, stride 1, no padding, spatially contiguous X: the patches are X itself
	w      []float32 // weights [O, cgk], contiguous
	dy     []float32 // output gradient [N, O, outVol], contiguous (backward modes)
	res    []float32 // the result, contiguous
	epi    *plan     // the epilogue, or nil when res is the output itself
	// Forward products from row patches (conv_taps.go): taps is where the
	// weights go, packed, when a product first reads row patches
	// (tapsOnce), nil when none may.
	taps     *tapsScratch
	tapsOnce sync.Once
	tapOff   []int // each kernel row's offset in the row patches
	// Forward products by Winograd's F(2×2, 3×3) (conv_winograd.go): the
	// transformed filters.
	wino *winogradScratch
	seq  uint64 // this convolution's number (convCalls)
}

// patchBudget is the floats of patches one patch matrix holds (1 MiB, half
// of a 2 MiB L2): wide enough that the product's packing and edge costs
// amortize over many columns.
const patchBudget = 1 << 18

// tileFor picks how many output positions one patch matrix covers: about
// patchBudget floats of patches, at least 64 positions, and whole output
// rows when a row fits, so that im2col moves each kernel tap's rows as one
// block copy instead of row pieces.
func (j *convJob) tileFor() int {
	t := max(64, patchBudget/max(j.cgk, 1))
	if ow := j.g.out[2]; ow > 0 && t >= ow {
		t = t / ow * ow
	}
	return min(j.g.outVol, t)
}

// newConvJob starts a convolution of geometry geom: its normalized
// geometry, the forward product's reduction length and the tile.
func newConvJob(geom device.ConvGeometry) *convJob {
	j := &convJob{g: norm3(geom, false)}
	j.cgk = j.g.cg * j.g.kVol
	j.tile = j.tileFor()
	return j
}

// convNow runs a convolution (forward or backward) with epilogue, by im2col and
// the sgemm seam.
func (d *Device) convNow(k *device.ConvKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	aData, err := d.data(k.A.Buf)
	if err != nil {
		return err
	}
	bData, err := d.data(k.B.Buf)
	if err != nil {
		return err
	}
	shape := k.ResultShape()
	total := device.NumElements(shape)
	res, direct, err := d.result(k.Epilogue, k.EpilogueInputs, k.Outputs, total, aData, bData)
	if err != nil {
		return err
	}
	j := newConvJob(k.Geom)
	j.res = res
	if !direct {
		if j.epi, err = d.epiPlan(k.Epilogue, k.EpilogueInputs, k.Outputs, shape, res); err != nil {
			return err
		}
	}
	if total == 0 {
		if j.epi != nil {
			return d.run(j.epi)
		}
		return nil
	}
	if j.depth(k.Mode) == 0 || j.g.outVol == 0 { // an empty sum (no weights, or no output position): zeros
		clear(res)
		return d.finish(j, false, nil)
	}
	a, b := asF32(aData), asF32(bData)
	switch k.Mode {
	case device.ConvForward:
		j.setImage(a, k.A)
		j.w = contiguousF32(&d.scratch.f32b, b, k.B)
		if j.direct3x3(false) {
			return d.convForwardDirect(j)
		}
		return d.convForward(j)
	case device.ConvBackwardInput:
		j.dy = contiguousF32(&d.scratch.f32d, a, k.A)
		j.w = contiguousF32(&d.scratch.f32b, b, k.B)
		return d.convBackwardInput(j)
	}
	j.dy = contiguousF32(&d.scratch.f32d, a, k.A)
	j.setImage(b, k.B)
	if j.direct3x3(true) {
		return d.convWeightDirect(j)
	}
	return d.convBackwardWeight(j)
}

// depth returns the reduction length of mode's product.
func (j *convJob) depth(mode device.ConvMode) int {
	switch mode {
	case device.ConvForward:
		return j.cgk
	case device.ConvBackwardInput:
		return j.g.og
	}
	return j.g.n * j.g.outVol
}

// setImage records the image operand X and whether im2col can be skipped.
func (j *convJob) setImage(x []float32, v device.View) {
	g := &j.g
	j.x, j.xoff, j.xst = x, v.Offset, strides5(v)
	st := j.xst
	j.direct = g.kVol == 1 && g.s == [3]int{1, 1, 1} && g.p == [3]int{} &&
		(st[4] == 1 || g.in[2] == 1) && (st[3] == g.in[2] || g.in[1] == 1) && (st[2] == g.in[1]*g.in[2] || g.in[0] == 1) &&
		(st[1] >= g.inVol || g.cg == 1)
}

// contiguousF32 returns view v of data as a contiguous slice, packing it
// into dst when it is strided.
func contiguousF32(dst *[]float32, data []float32, v device.View) []float32 {
	n := v.NumElements()
	if v.IsContiguous() {
		return data[v.Offset : v.Offset+n]
	}
	*dst = grow(*dst, n)
	out := *dst
	var idx [8]int
	walk(v.Shape, [3][]int{v.Strides}, [3]int{v.Offset}, 0, n, idxScratch(idx[:], len(v.Shape)), func(pos int, at [3]int, run int) {
		st := v.Strides[len(v.Strides)-1]
		for t := 0; t < run; t++ {
			out[pos+t] = data[at[0]+t*st]
		}
	})
	return out
}

// idxScratch returns buf if it can hold n indices, else a new slice.
func idxScratch(buf []int, n int) []int {
	if n <= len(buf) {
		return buf[:n]
	}
	return make([]int, n)
}

// forImages runs fn once per image: in parallel over images with
// single-threaded products when there are enough images to share, else
// image after image with products split over the workers. fn's threads
// argument is the goroutines its products may use, and par says whether
// images run in parallel; cost is the work (multiply-adds) of one image.
// It returns par.
func (d *Device) forImages(n, cost int, fn func(ws *workspace, img, threads int, par bool)) (par bool, err error) {
	w := d.workers
	if w > 1 && parallelImages(n, w) && !d.serial(n, cost) {
		return true, d.parallelFor(n, 1, func(wk, lo, hi int) {
			for img := lo; img < hi; img++ {
				fn(d.ws[wk], img, 1, true)
			}
		})
	}
	threads := w
	if 2*cost < gemmParallelFlops {
		threads = 1
	}
	ws := d.ws[0]
	return false, safely(func() {
		for img := 0; img < n; img++ {
			fn(ws, img, threads, false)
		}
	})
}

// parallelImages reports whether n images (or pieces of work) share out
// well enough over w workers to run in parallel: at least four each, or an
// equal number. One worker runs everything.
func parallelImages(n, w int) bool {
	return w == 1 || n >= w && (n >= 4*w || n%w == 0)
}

// imageEpilogue runs the epilogue over positions [lo, hi) of the result
// (some images' part) on ws when images run in parallel; otherwise finish
// runs it over everything.
func (j *convJob) imageEpilogue(ws *workspace, lo, hi int, parallel bool) {
	if j.epi != nil && parallel {
		j.epi.runRange(ws, lo, hi)
	}
}

// finish runs the epilogue over the whole result unless the images ran it.
func (d *Device) finish(j *convJob, parallel bool, err error) error {
	if err != nil || j.epi == nil || parallel {
		return err
	}
	return d.run(j.epi)
}
