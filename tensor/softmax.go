package tensor

import "slices"

// Softmax normalizes exp(t) along axis to sum to one, stably (the maximum is
// subtracted first). A row of -Inf gives NaN, as in PyTorch.
func (t *Tensor) Softmax(axis int) *Tensor {
	t.check("Softmax")
	axis = normAxis("Softmax", axis, t.Dim())
	x := t.Detach().asFloat32() // recorded below as one op
	out := rowKernel(t, x, axis, false)
	if out == nil {
		e := x.Sub(rowMax(x, axis)).Exp()
		out = e.Div(e.SumKeepDim(axis))
	}
	return recordGrad(opSoftmax, out.Cast(floatType(t.DType())), []*Tensor{t}, axis)
}

// LogSoftmax is log(Softmax(t)) computed stably.
func (t *Tensor) LogSoftmax(axis int) *Tensor {
	t.check("LogSoftmax")
	axis = normAxis("LogSoftmax", axis, t.Dim())
	x := t.Detach().asFloat32() // recorded below as one op
	out := rowKernel(t, x, axis, true)
	if out == nil {
		z := x.Sub(rowMax(x, axis))
		out = z.Sub(z.Exp().SumKeepDim(axis).Log())
	}
	return recordGrad(opLogSoftmax, out.Cast(floatType(t.DType())), []*Tensor{t}, axis)
}

// rowKernel is the softmax (log-softmax with log) of x, t as Float32, by the
// device's row kernel when axis is the last one, or nil. Float64 keeps the
// three-kernel path.
func rowKernel(t, x *Tensor, axis int, log bool) *Tensor {
	if axis != x.Dim()-1 || t.DType() == Float64 {
		return nil
	}
	return rowSoftmax(x, log)
}

// rowMax is x's maximum along axis, kept as a size-one dimension. An empty
// axis has no maximum but its softmax is empty (as in PyTorch), so zero
// stands in for it.
func rowMax(x *Tensor, axis int) *Tensor {
	if x.shape[axis] == 0 {
		shape := slices.Clone(x.shape)
		shape[axis] = 1
		return Zeros(x.Device(), shape...)
	}
	return x.MaxKeepDim(axis)
}
