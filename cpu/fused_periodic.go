package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// Periodic operands of the fused machine. A source broadcast along its
// outer dimensions (a channel's bias added to every image, a Linear
// layer's bias to every row) repeats with the period of its inner
// dimensions. The machine streams such a source from a buffer holding one
// period written out (a multiple of vec.FusedBlock; see periodMinLen), on
// a worker's copy of the program whose stream for it is shifted back by a
// period at each period's start (vec.FusedProgram.Shift).
// The interpreter would otherwise evaluate the program a run at a time
// (a chunk per channel plane) or gather the source chunk by chunk.

// periodMinLen is about the shortest period the machine runs: a shorter
// one is repeated as many whole times as fit in it, so that each run of
// the machine covers enough blocks to amortize its dispatch.
const periodMinLen = 1024

// periodMaxLen is the longest: a longer period costs too much to write
// out for each kernel, and its buffer would leave the cache.
const periodMaxLen = 1 << 16

// planPeriods marks the plan's periodic sources: float32 sources read
// through strides that are zero along some outer dimensions, when one
// common period, a multiple of every such source's and of vec.FusedBlock,
// is at most periodMaxLen. It sets p.period, or 0 when no source
// qualifies; fusedOperand writes out a source's buffer when it streams it.
func (p *plan) planPeriods() {
	p.period, p.periodic = 0, p.periodic[:0]
	period, found := vec.FusedBlock, false
	for k := range p.srcs {
		s := &p.srcs[k]
		s.periodic, s.expanded = false, nil
		if s.dt != device.Float32 || s.kind != srcStrided {
			continue
		}
		own := p.periodOf(s)
		if own >= p.n {
			continue
		}
		if period = lcm(period, own); period > periodMaxLen {
			for k := range p.srcs {
				p.srcs[k].periodic = false
			}
			return
		}
		s.periodic, found = true, true
	}
	if found {
		p.period = period * max(1, periodMinLen/period)
	}
}

// periodBuffer returns source k's buffer holding its first period (or
// all of it when the plan is shorter) written out, writing it on the
// source's first use in the program.
func (p *plan) periodBuffer(k int) []float32 {
	s := &p.srcs[k]
	if s.expanded != nil {
		return s.expanded
	}
	size := min(p.period, p.n)
	if len(p.periodBuf) < len(p.srcs) { // keeping the buffers streamed already
		p.periodBuf = append(p.periodBuf, make([][]float32, len(p.srcs)-len(p.periodBuf))...)
	}
	buf := grow(p.periodBuf[k], size)
	p.periodBuf[k] = buf
	p.idx = grow(p.idx, len(p.dims))
	gatherStrided(buf, s.f32, p.dims, s.strides, s.off, 0, p.idx)
	s.expanded = buf
	return buf
}

// periodOf returns the number of positions after which source s repeats:
// the product of the plan's dimensions from the outermost one along which
// s moves (p.n when it moves along the first, 1 when along none).
func (p *plan) periodOf(s *source) int {
	for d := range p.dims {
		if s.strides[d] != 0 {
			period := 1
			for _, n := range p.dims[d:] {
				period *= n
			}
			return period
		}
	}
	return 1
}

// runFused runs the machine over positions [lo, hi), whole blocks, one
// period at a time when it has periodic operands.
func (p *plan) runFused(ws *workspace, lo, hi int) {
	if len(p.periodic) == 0 {
		vec.RunFused(&p.vm, lo, hi)
		return
	}
	ws.vm.CopyFrom(&p.vm)
	shift := 0 // how far ws.vm's periodic streams are shifted now
	for lo < hi {
		start := lo - lo%p.period
		for _, k := range p.periodic {
			ws.vm.Shift(k, -start-shift)
		}
		shift = -start
		end := min(hi, start+p.period)
		vec.RunFused(&ws.vm, lo, end)
		lo = end
	}
}

// lcm returns the least common multiple of two positive ints.
func lcm(a, b int) int {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}
