package tensor

// Grad mode belongs to a device, not to the process or a goroutine (Go has
// none of goroutine-local state): training on one device is unaffected by
// evaluation without gradients on another, whichever goroutines run them.

// NoGrad runs fn with gradient recording off on d: while fn runs, operations
// on d's tensors record nothing for autograd, whichever goroutine issues
// them, so their results never require a gradient. Other devices are
// unaffected. Calls nest, and Backward works inside NoGrad.
//
// Because the mode is the device's, a goroutine that evaluates under NoGrad
// must not share d with one that is building a graph to differentiate: that
// graph would silently miss the operations recorded meanwhile. Give each
// concurrent trainer its own device (tensor.Open returns a new, independent
// Device on every call); to evaluate on a device that another goroutine
// trains on, skip NoGrad and call Detach on the results instead (the
// recorded graph is dropped with them).
func (d *Device) NoGrad(fn func()) {
	d.noGrad.Add(1)
	defer d.noGrad.Add(-1)
	fn()
}

// GradEnabled reports whether operations on d are recorded for autograd,
// that is, whether no NoGrad call of d is running.
func (d *Device) GradEnabled() bool { return d.noGrad.Load() == 0 }

// recordsGrad reports whether an operation reading t records itself for
// autograd: t requires a gradient and its device's grad mode is on.
func (t *Tensor) recordsGrad() bool { return t.requiresGrad() && t.n.dev.GradEnabled() }
