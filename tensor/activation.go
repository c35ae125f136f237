package tensor

// Activations composed of primitive ops: they need no op of their own in the
// device contract, their gradients follow from the parts', and fusion runs
// each as one kernel on every backend.

// Mish returns t*tanh(softplus(t)) (Misra 2019; torch.nn.functional.mish).
func (t *Tensor) Mish() *Tensor {
	t.check("Mish")
	return t.Mul(t.Softplus().Tanh())
}
