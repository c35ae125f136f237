package tensor

import "math"

// Inclusive scans built as a Hillis–Steele network: step k adds (or
// multiplies) each element from position s = 2^k on with the one s before
// it, so a dimension of n elements takes ceil(log2 n) steps of one fused
// elementwise op over two views and a Cat that keeps the first s elements.
// Each result combines its prefix in a balanced tree, so the rounding error
// grows with log2 n rather than n, and the gradient follows from the
// parts'. Cumsum on a device with a running-sum kernel (device.Cumsummer)
// is that kernel instead (see nativeCumsum).

// Cumsum returns the running sums along axis, as torch.cumsum. Float16 and
// BFloat16 are accumulated in Float32 and rounded once, Float64 in Float64;
// integers and Bool give Int64 as in PyTorch, or, on a device without Int64
// (Vulkan, WebGPU), Int32 where no running sum can pass 2^31 (counts of
// Bool, Uint8 and Int8) and an error naming Int64 otherwise.
func (t *Tensor) Cumsum(axis int) *Tensor {
	return t.scan("Cumsum", axis, (*Tensor).Add)
}

// nativeScan is whether Cumsum may use the device's running-sum kernel;
// tests turn it off to run the network on a device that has one.
var nativeScan = true

// Cumprod returns the running products along axis, as torch.cumprod, with
// Cumsum's dtypes. Its gradient is exact where elements are zero.
func (t *Tensor) Cumprod(axis int) *Tensor {
	return t.scan("Cumprod", axis, (*Tensor).Mul)
}

// scan runs the device's running-sum kernel (Cumsum on a device.Cumsummer)
// or the network.
func (t *Tensor) scan(op string, axis int, combine func(a, b *Tensor) *Tensor) *Tensor {
	t.check(op)
	if t.Dim() == 0 {
		return t.Reshape(1).scan(op, 0, combine).Reshape()
	}
	a := normAxis(op, axis, t.Dim())
	x := t
	switch dt := t.DType(); {
	case !dt.IsFloat() && !t.n.dev.Supports(Int64) && exactInInt32(op, dt, t.shape[a]):
		x = t.Cast(Int32)
	case !dt.IsFloat():
		// A backend without Int64 refuses the cast with an error naming
		// the type: a scan that could pass 2^31 is never wrapped.
		x = t.Cast(Int64)
	case dt != Float32 && dt != Float64:
		x = t.Cast(Float32)
	}
	n := t.shape[a]
	if c := nativeCumsum(op, x, a); c != nil {
		x = c
	} else {
		for s := 1; s < n; s *= 2 {
			x = Cat(a, x.Narrow(a, 0, s), combine(x.Narrow(a, s, n-s), x.Narrow(a, 0, n-s)))
		}
	}
	if dt := t.DType(); dt.IsFloat() && dt != Float32 && dt != Float64 {
		x = x.Cast(dt)
	}
	return x
}

// exactInInt32 reports whether every running result of scan op over n
// elements of dt fits Int32 whatever the values: counts of Bool, Uint8 and
// Int8 while n times the largest magnitude stays within 2^31-1, and
// products of Bool.
func exactInInt32(op string, dt DType, n int) bool {
	bound, ok := smallIntBound[dt]
	switch {
	case !ok:
		return false
	case op == "Cumprod":
		return dt == Bool
	}
	return n <= math.MaxInt32/bound
}
