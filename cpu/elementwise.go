package cpu

import (
	"github.com/shaderflow/shaderflow/tensor/device"
	"runtime"
)

// elementwiseNow runs a fused elementwise program.
func (d *Device) elementwiseNow(k *device.ElementwiseKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	if c, ok := reorderingCopy(k); ok {
		return d.copyLocked(c)
	}
	if isWide([][]device.View{k.Inputs, k.Outputs}, k.Program) {
		return d.elementwiseWide(k)
	}
	p := &d.plans[0]
	p.reset(k.Program.Code, k.Shape)
	if err := d.addViews(p, k.Inputs); err != nil {
		return err
	}
	if err := d.addSinks(p, k.Outputs, k.Program.Outputs); err != nil {
		return err
	}
	p.finish(k.Program.Outputs)
	p.compileFused()
	return d.run(p)
}

// addViews adds input views to a plan.
func (d *Device) addViews(p *plan, views []device.View) error {
	for _, v := range views {
		data, err := d.data(v.Buf)
		if err != nil {
			return err
		}
		p.addView(data, v)
	}
	return nil
}

// addSinks adds output views to a plan, storing registers regs.
func (d *Device) addSinks(p *plan, views []device.View, regs []device.Reg) error {
	for j, v := range views {
		data, err := d.data(v.Buf)
		if err != nil {
			return err
		}
		p.addSink(data, v, regs[j])
	}
	return nil
}

// run evaluates a finished plan over all its positions and stores its
// sinks.
func (d *Device) run(p *plan) error { return d.runSpan(p, 0, p.n) }

// runSpan evaluates a finished plan over positions [lo, hi) and stores its
// sinks: inline on the caller when the work is small or a cheap
// cache-resident pass (cheapInCache), else in parallel in whole chunks.
func (d *Device) runSpan(p *plan, lo, hi int) error {
	return d.runSpanSplit(p, lo, hi, !p.cheapInCache(hi-lo))
}

// runSpanSplit is runSpan where the caller decides whether a pass with
// enough work is split among the workers: after a parallel product, whose
// result lies in the caches of all the workers that computed it, it is.
func (d *Device) runSpanSplit(p *plan, lo, hi int, split bool) error {
	n := hi - lo
	if n <= 0 {
		return nil
	}
	cost := len(p.code)
	if d.serial(n, cost) || !split {
		ws := d.ws[0]
		return safely(func() { p.runRange(ws, lo, hi) })
	}
	grain := roundUp(d.grainFor(n, cost), chunkLen)
	return d.parallelFor(n, grain, func(w, a, b int) { p.runRange(d.ws[w], lo+a, lo+b) })
}

// cacheResidentSpan is the most bytes of operands (inputs and outputs
// together, at 4 bytes an element) that a cheap elementwise pass runs on one
// worker. Such operands are mostly still in the cache of the core that wrote
// them, and a pass over them is bound by that cache: splitting it makes the
// other core fetch its half from there (docs/measurements.md).
const cacheResidentSpan = 3 << 19

// cheapInCache reports whether n positions of p are a cache-resident pass
// of cheap operations (no transcendental, division, root or random number),
// which runs faster on one worker.
func (p *plan) cheapInCache(n int) bool {
	if n*4*(len(p.srcs)+len(p.sinks)) > cacheResidentSpan {
		return false
	}
	for _, in := range p.code {
		if in.Op.Info().Cost == device.Expensive {
			return false
		}
	}
	return true
}

// roundUp rounds n up to a multiple of m.
func roundUp(n, m int) int { return (n + m - 1) / m * m }

// reorderingCopy returns the copy that k is when its program stores its
// one input unchanged into one output of the same type and that copy
// transposes (Contiguous of a transposed or permuted view) or reverses
// rows (of a flipped view): the copy transposes tile by tile in parallel,
// where the interpreter would transpose the source into scratch on one
// worker and then copy it, and reverses rows in one pass.
func reorderingCopy(k *device.ElementwiseKernel) (*device.CopyKernel, bool) {
	p := k.Program
	if len(k.Inputs) != 1 || len(k.Outputs) != 1 || len(p.Code) != 1 || p.Code[0].Op != device.OpInput ||
		p.Code[0].Index != 0 || p.Outputs[0] != 0 || k.Inputs[0].DType != k.Outputs[0].DType {
		return nil, false
	}
	c := &device.CopyKernel{Dst: k.Outputs[0], Src: k.Inputs[0]}
	cc := coalesced(c)
	return cc, transposing(cc) || reversing(cc)
}

// reversing reports whether a coalesced copy reads its innermost dimension
// backwards into a contiguous run (a flipped view).
func reversing(k *device.CopyKernel) bool {
	nd := len(k.Src.Shape)
	return nd > 0 && k.Src.Strides[nd-1] == -1 && k.Dst.Strides[nd-1] == 1 && k.Src.Shape[nd-1] >= minCopyRow
}
