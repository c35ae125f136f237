package device

import "fmt"

// CumsumKernel computes the running sums of every line along the last
// dimension of X: Out[..., j] = X[..., 0] + … + X[..., j]. X is a Float32,
// Float64, Int32 or Int64 view of any strides; Out is a contiguous view of
// X's shape and type. Float32 sums are accumulated in at least float32
// precision (the CPU accumulates in float64 and rounds each result, as
// PyTorch's CPU kernel does); integer sums wrap as their type does.
type CumsumKernel struct {
	X, Out View
}

// Cumsummer is implemented by devices with a running-sum kernel. The front
// end uses it when the device has it and otherwise builds the running sums
// as a network of ceil(log2 n) elementwise steps.
type Cumsummer interface {
	// Cumsum writes the running sums of each line of k.X into k.Out.
	Cumsum(k *CumsumKernel) error
}

// Validate checks the kernel (see the package's validation rules).
func (k *CumsumKernel) Validate() error {
	const kn = "cumsum"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if err := checkView(kn, "X", k.X); err != nil {
		return err
	}
	if len(k.X.Shape) == 0 {
		return fmt.Errorf("device: %s: X has no dimension to sum along", kn)
	}
	switch k.X.DType {
	case Float32, Float64, Int32, Int64:
	default:
		return fmt.Errorf("device: %s: X has dtype %s, want Float32, Float64, Int32 or Int64", kn, k.X.DType)
	}
	if err := checkOutput(kn, "Out", k.Out, k.X.Shape); err != nil {
		return err
	}
	return checkDType(kn, "Out", k.Out, k.X.DType)
}
