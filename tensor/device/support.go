package device

import "fmt"

// CheckDTypes returns an error naming the first element type that kernel k
// (an *ElementwiseKernel, *ReduceKernel, *CopyKernel or *GatherKernel; the
// other kinds take BaseDTypes only) uses in a view or a program register,
// or as a reduction's accumulator, and that a backend named backend lacks:
// it stores and computes dtypes and reduces in accs. Backends whose
// Info.DTypes is not AllDTypes call it after Validate, so that a type they
// lack is refused with a clear error, never miscomputed.
func CheckDTypes(backend string, dtypes, accs DTypeSet, k any) error {
	var views []View
	var progs []Program
	switch k := k.(type) {
	case *ElementwiseKernel:
		views = append(append(views, k.Inputs...), k.Outputs...)
		progs = append(progs, k.Program)
	case *ReduceKernel:
		if a := k.Accumulator(); !accs.Has(a) {
			return fmt.Errorf("%s: reductions accumulating in %s are not supported (accumulators: %s)", backend, a, accs)
		}
		views = append(append(append(views, k.Inputs...), k.EpilogueInputs...), k.Outputs...)
		progs = append(progs, k.Prologue, k.Epilogue)
	case *CopyKernel:
		views = append(views, k.Src, k.Dst)
	case *GatherKernel:
		views = append(views, k.Src, k.Out)
	}
	for _, v := range views {
		if !dtypes.Has(v.DType) {
			return fmt.Errorf("%s: %s tensors are not supported (supported: %s)", backend, v.DType, dtypes)
		}
	}
	for _, p := range progs {
		for _, in := range p.Code {
			if !dtypes.Has(in.Type) {
				return fmt.Errorf("%s: %s registers are not supported (supported: %s)", backend, in.Type, dtypes)
			}
		}
	}
	return nil
}
