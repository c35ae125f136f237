package device

import "fmt"

// SortKernel computes, for every line along the last dimension of X, the
// positions that sort it, as torch.sort(stable=True): numbers in ascending
// order followed by NaN, or with Descending NaN first and then numbers in
// descending order; equal values (−0 and +0 included) and NaNs keep the
// order of their positions. X is a view of any strides and of any numeric
// type (Bool, Uint8 and Int8 compare as their values); its last dimension
// holds at most MaxSortLine elements. K, when not zero, keeps only the
// first K positions of each sorted line (torch.topk); Out is a contiguous
// Int32 view of X's shape with the last dimension K (or the line's length).
type SortKernel struct {
	X, Out     View
	Descending bool
	K          int
}

// Kept returns how many positions of each line the kernel writes.
func (k *SortKernel) Kept() int {
	if k.K != 0 {
		return k.K
	}
	return k.X.Shape[len(k.X.Shape)-1]
}

// MaxSortLine is the longest line a SortKernel sorts: a backend may need
// scratch of a few times a line outside the device's memory (the CPU's is
// 16 bytes an element), so longer lines are refused rather than risk
// exhausting the host's.
const MaxSortLine = 1 << 24

// Sorter is implemented by devices with a sort kernel. The front end uses it
// when the device has it and otherwise sorts with a bitonic network of
// gathers and selections (about log2(n)²/2 passes over the data).
type Sorter interface {
	// Sort writes the positions that sort each line of k.X into k.Out.
	Sort(k *SortKernel) error
}

// Validate checks the kernel (see the package's validation rules).
func (k *SortKernel) Validate() error {
	const kn = "sort"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if err := checkView(kn, "X", k.X); err != nil {
		return err
	}
	if len(k.X.Shape) == 0 {
		return fmt.Errorf("device: %s: X has no dimension to sort along", kn)
	}
	if n := k.X.Shape[len(k.X.Shape)-1]; n > MaxSortLine {
		return fmt.Errorf("device: %s: lines of %d elements exceed the %d a sort kernel takes", kn, n, MaxSortLine)
	}
	n := k.X.Shape[len(k.X.Shape)-1]
	if k.K < 0 || k.K > n {
		return fmt.Errorf("device: %s: K %d is outside [0, %d], the line's length", kn, k.K, n)
	}
	if err := checkOutput(kn, "Out", k.Out, k.X.Shape[:len(k.X.Shape)-1], []int{k.Kept()}); err != nil {
		return err
	}
	return checkDType(kn, "Out", k.Out, Int32)
}
