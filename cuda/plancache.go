//go:build cgo && linux

package cuda

import "github.com/shaderflow/shaderflow/tensor/device"

// planCap bounds the plans a device keeps: storing one more empties the
// cache, so that kernels of ever new shapes or offsets cannot grow it
// without end.
const planCap = 1024

// planMaxLaunches is the most launches of a plan the cache keeps, so that
// host-looped kernels, whose words grow with their leading dimensions,
// cannot hold much memory.
const planMaxLaunches = 64

// kernelPlan is what a generated kernel (elementwise, reduction or matrix
// product) that passed validation needs to run again: its launches'
// parameter words and how to launch one. It serves every kernel of its key
// (appendEwKey, appendRdKey, appendMmKey), whatever their buffers: bind
// checks those and writes their addresses into the words.
type kernelPlan struct {
	need   []int64               // per view, in the kind's order: the elements its buffer must hold for the view to validate
	at     []int                 // per view: the word of every launch that holds its buffer's address
	words  [][]int64             // one per launch
	launch func(w []int64) error // runs one launch; nil when there is none
}

// newPlan returns the plan of a validated kernel with launches words, run
// by launch, whose views, in groups, have their addresses at words at.
func newPlan(words [][]int64, launch func([]int64) error, at []int, groups ...[]device.View) *kernelPlan {
	p := &kernelPlan{at: at, words: words, launch: launch}
	for _, vs := range groups {
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

// run launches p's words, whose addresses are bound.
func (p *kernelPlan) run() error {
	for _, w := range p.words {
		if err := p.launch(w); err != nil {
			return err
		}
	}
	return nil
}

// bind writes the addresses of the buffers of views, in groups in the
// kind's order, into p's words and reports whether every buffer is a live
// buffer of d large enough for its view, so that the kernel, whose key is
// p's, passes validation and the buffer checks as the kernel p was
// planned for did. When it reports false, p's words may hold other
// kernels' addresses, so p must not run before a bind that reports true.
func (d *Device) bind(p *kernelPlan, groups ...[]device.View) bool {
	j := 0
	for _, vs := range groups {
		for _, v := range vs {
			b, ok := v.Buf.(*buffer)
			if !ok || b == nil || b.dev != d || b.freed || p.need[j] > b.bytes/int64(v.DType.Size()) {
				return false
			}
			for _, w := range p.words {
				w[p.at[j]] = int64(b.ptr)
			}
			j++
		}
	}
	return true
}

// runPlan runs the kernel of key, whose views are groups: with the cached
// plan of key when its buffers bind, else with the plan that plan
// returns, which is then cached unless it is nil or has more than
// planMaxLaunches launches. plan validates the kernel and may run it
// itself, returning a nil plan, when the kernel takes a path the cache
// does not serve.
func (d *Device) runPlan(key []byte, plan func() (*kernelPlan, error), groups ...[]device.View) error {
	if p := d.plans[string(key)]; p != nil && d.bind(p, groups...) {
		return p.run()
	}
	ks := string(key)
	p, err := plan()
	if p == nil || err != nil {
		return err
	}
	if len(p.words) <= planMaxLaunches {
		if len(d.plans) >= planCap {
			clear(d.plans)
		}
		d.plans[ks] = p
	}
	return p.run()
}

// wordRuns returns the words of runs of consecutive words, given as pairs
// of a first word and a count, in order: where a kind's views hold their
// addresses.
func wordRuns(runs ...int) []int {
	var at []int
	for i := 0; i < len(runs); i += 2 {
		for j := range runs[i+1] {
			at = append(at, runs[i]+j)
		}
	}
	return at
}
