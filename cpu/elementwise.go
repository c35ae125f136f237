package cpu

import (
	"github.com/shaderflow/shaderflow/tensor/device"
)

// Elementwise runs a fused elementwise program.
func (d *Device) Elementwise(k *device.ElementwiseKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
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
// sinks: inline on the caller when the work is small, else in parallel in
// whole chunks.
func (d *Device) runSpan(p *plan, lo, hi int) error {
	n := hi - lo
	if n <= 0 {
		return nil
	}
	cost := len(p.code)
	if d.serial(n, cost) {
		ws := d.ws[0]
		return safely(func() { p.runRange(ws, lo, hi) })
	}
	grain := roundUp(d.grainFor(n, cost), chunkLen)
	return d.parallelFor(n, grain, func(w, a, b int) { p.runRange(d.ws[w], lo+a, lo+b) })
}

// roundUp rounds n up to a multiple of m.
func roundUp(n, m int) int { return (n + m - 1) / m * m }
