//go:build cgo && linux

package cuda

import "github.com/shaderflow/shaderflow/tensor/device"

// ewPlanCap bounds the elementwise plans a device keeps: storing one more
// empties the cache, so that kernels of ever new shapes or offsets cannot
// grow it without end.
const ewPlanCap = 1024

// ewPlanMaxLaunches is the most launches of a plan the cache keeps, so that
// host-looped kernels, whose words grow with their leading dimensions,
// cannot hold much memory.
const ewPlanMaxLaunches = 64

// ewPlan is what an elementwise kernel that passed validation needs to run
// again: its launches' parameter words and its module. It serves every
// kernel of its key (appendEwKey), whatever their buffers: bind checks
// those and writes their addresses into the words.
type ewPlan struct {
	layout ewLayout
	need   []int64   // per view, inputs then outputs: the elements its buffer must hold for the view to validate
	words  [][]int64 // one per launch
	m      *module   // nil when there is no launch
}

// newEwPlan returns the plan of validated kernel k with launches words
// and module m.
func newEwPlan(k *device.ElementwiseKernel, words [][]int64, m *module) *ewPlan {
	_, nimm := immSlots(k.Program)
	p := &ewPlan{layout: ewLayout{nin: len(k.Inputs), nout: len(k.Outputs), nimm: nimm}, words: words, m: m}
	for _, vs := range [][]device.View{k.Inputs, k.Outputs} {
		for _, v := range vs {
			need := 0
			if v.NumElements() > 0 {
				_, need = v.Span()
			}
			p.need = append(p.need, int64(need))
		}
	}
	return p
}

// ptrWord returns the word that holds view j's address (inputs then
// outputs).
func (p *ewPlan) ptrWord(j int) int {
	if j < p.layout.nin {
		return p.layout.inPtr() + j
	}
	return p.layout.outPtr() + j - p.layout.nin
}

// bind writes the addresses of k's buffers into p's words and reports
// whether every buffer is a live buffer of d large enough for its view, so
// that k, whose key is p's, passes validation and the buffer checks as
// the kernel p was planned for did. When it reports false, p's words may
// hold other kernels' addresses, so p must not run before a bind that
// reports true.
func (d *Device) bind(p *ewPlan, k *device.ElementwiseKernel) bool {
	j := 0
	for _, vs := range [][]device.View{k.Inputs, k.Outputs} {
		for _, v := range vs {
			b, ok := v.Buf.(*buffer)
			if !ok || b == nil || b.dev != d || b.freed || p.need[j] > b.bytes/int64(v.DType.Size()) {
				return false
			}
			for _, w := range p.words {
				w[p.ptrWord(j)] = int64(b.ptr)
			}
			j++
		}
	}
	return true
}

// storeEwPlan caches p under key, unless it has more than
// ewPlanMaxLaunches launches.
func (d *Device) storeEwPlan(key []byte, p *ewPlan) {
	if len(p.words) > ewPlanMaxLaunches {
		return
	}
	if len(d.ewPlans) >= ewPlanCap {
		clear(d.ewPlans)
	}
	d.ewPlans[string(key)] = p
}
