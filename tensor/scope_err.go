package tensor

// ScopeErr runs fn inside Scope and returns its error: the form of a
// training step that fails with an error rather than a panic,
//
//	err := dev.ScopeErr(func() error {
//		loss := nn.CrossEntropy(model.Forward(x), y)
//		if err := loss.Backward(); err != nil {
//			return err
//		}
//		defer opt.ZeroGrad()
//		return opt.Step()
//	})
//
// Every tensor created while fn runs is released when it returns, with or
// without an error, except those passed to Keep.
func (d *Device) ScopeErr(fn func() error) error {
	var err error
	d.Scope(func() { err = fn() })
	return err
}
