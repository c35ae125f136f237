package gpu

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Target describes what a launch is encoded for: the limits of the device
// that will run it.
type Target struct {
	// MaxBindings is the number of data bindings a launch may use
	// (bindings 1..MaxBindings; binding 0 is the params buffer).
	MaxBindings int
	// MaxBindingBytes is the largest byte range one binding may cover.
	MaxBindingBytes int64
	// BindingAlign is the alignment of a binding's byte offset
	// (minStorageBufferOffsetAlignment), a power of two >= 4.
	BindingAlign int64
	// MaxWorkgroups is the largest workgroup count of one grid dimension.
	MaxWorkgroups int
	// MaxLoopIterations is the most loop iterations one invocation may run,
	// all its loops together, or 0 for no limit (see loops.go).
	MaxLoopIterations int
}

// Binding is one data binding of a launch: a byte range of a buffer.
type Binding struct {
	Buf    device.Buffer
	Offset int64 // a multiple of Target.BindingAlign
	Size   int64 // a positive multiple of 4
}

// planned is a view waiting for its binding range: the descriptor's word
// offset in the params and the view's element span.
type planned struct {
	desc    int
	binding int
	elem    int64 // element size in bytes
	offset  int   // the view's element offset
}

// bindingPlan assigns bindings to buffers (one binding per distinct buffer)
// and the byte range each binding covers.
type bindingPlan struct {
	target Target
	bufs   []device.Buffer
	lo, hi []int64 // byte span used in each buffer
	views  []planned
	// backing arrays: typical launches plan without allocating
	bufArr       [8]device.Buffer
	loArr, hiArr [8]int64
	viewArr      [16]planned
}

func (p *bindingPlan) init(t Target) {
	p.target = t
	p.bufs, p.lo, p.hi, p.views = p.bufArr[:0], p.loArr[:0], p.hiArr[:0], p.viewArr[:0]
}

// add registers a view whose descriptor starts at word desc and returns its
// binding number (1-based).
func (p *bindingPlan) add(desc int, v device.View) int {
	b := -1
	for i, x := range p.bufs {
		if x == v.Buf {
			b = i
			break
		}
	}
	es := int64(v.DType.Size())
	lo, hi := v.Span()
	lob, hib := int64(lo)*es, int64(hi)*es
	if b < 0 {
		p.bufs = append(p.bufs, v.Buf)
		p.lo = append(p.lo, lob)
		p.hi = append(p.hi, hib)
		b = len(p.bufs) - 1
	} else if lo < hi {
		if p.lo[b] >= p.hi[b] { // only empty views so far
			p.lo[b], p.hi[b] = lob, hib
		} else {
			p.lo[b] = min(p.lo[b], lob)
			p.hi[b] = max(p.hi[b], hib)
		}
	}
	p.views = append(p.views, planned{desc: desc, binding: b + 1, elem: es, offset: v.Offset})
	return b + 1
}

// bindRange returns the byte range [off, end) a binding of buf covers when
// the kernel's views span bytes [lo, hi) of it: the whole buffer when it
// fits one binding, else the span aligned to t.BindingAlign (never empty);
// ok is false when that is more than t binds at once.
func (t Target) bindRange(buf device.Buffer, lo, hi int64) (off, end int64, ok bool) {
	size := buf.Bytes() &^ 3
	if size <= t.MaxBindingBytes {
		off, end = 0, size
	} else {
		off = lo &^ (max(t.BindingAlign, 4) - 1)
		end = min((hi+3)&^3, size)
		if end-off > t.MaxBindingBytes {
			return 0, 0, false
		}
	}
	if end <= off { // an empty range is never bound: bind one word
		end = off + 4
	}
	return off, end, true
}

// finish computes the bindings and patches each planned descriptor's binding
// number and (rebased) offset into words.
func (p *bindingPlan) finish(kernel string, words []uint32) ([]Binding, error) {
	if len(p.bufs) > p.target.MaxBindings {
		return nil, fmt.Errorf("gpu: %s: uses %d buffers, the device binds at most %d per kernel", kernel, len(p.bufs), p.target.MaxBindings)
	}
	bs := make([]Binding, len(p.bufs))
	for i, buf := range p.bufs {
		off, end, ok := p.target.bindRange(buf, p.lo[i], p.hi[i])
		if !ok {
			return nil, fmt.Errorf("gpu: %s: a view spans bytes [%d,%d) of a %d-byte buffer, more than the device binds at once (%d bytes)",
				kernel, p.lo[i], p.hi[i], buf.Bytes(), p.target.MaxBindingBytes)
		}
		bs[i] = Binding{Buf: buf, Offset: off, Size: end - off}
	}
	for _, v := range p.views {
		words[v.desc+vdBinding] = uint32(v.binding)
		words[v.desc+vdOffset] = uint32(int64(v.offset) - bs[v.binding-1].Offset/v.elem)
	}
	return bs, nil
}
