package tensor

// scopeFrame collects the handles created while a scope is open.
type scopeFrame struct{ handles []*handle }

// Scope runs fn and then releases every tensor created on this device while
// fn ran, except those passed to Keep: the deterministic way to hold device
// memory flat across the iterations of a loop. Scopes nest; a scope belongs to
// the goroutine that opened it, and tensors of one device should be created by
// one goroutine while a scope is open.
func (d *Device) Scope(fn func()) {
	d.mu.Lock()
	f := &scopeFrame{}
	d.scopes = append(d.scopes, f)
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		for i := len(d.scopes) - 1; i >= 0; i-- {
			if d.scopes[i] == f {
				d.scopes = append(d.scopes[:i], d.scopes[i+1:]...)
				break
			}
		}
		for _, h := range f.handles {
			h.byScope = !h.released.Load()
			d.releaseLocked(h)
		}
	}()
	fn()
}

// Keep exempts t from release by the innermost open scope; the enclosing
// scope, if any, takes it over. It returns t.
func (t *Tensor) Keep() *Tensor {
	t.check("Keep")
	d := t.n.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.keepLocked(t.h) {
		t.collectable()
	}
	return t
}

// keepLocked moves h from its scope to the enclosing one and reports
// whether a scope still holds it.
func (d *Device) keepLocked(h *handle) bool {
	for i := len(d.scopes) - 1; i >= 0; i-- {
		f := d.scopes[i]
		for j := len(f.handles) - 1; j >= 0; j-- {
			if f.handles[j] == h {
				f.handles = append(f.handles[:j], f.handles[j+1:]...)
				if i > 0 {
					d.scopes[i-1].handles = append(d.scopes[i-1].handles, h)
					return true
				}
				return false
			}
		}
	}
	return false
}
