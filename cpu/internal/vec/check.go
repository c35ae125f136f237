package vec

import "fmt"

// checkLen panics unless every length equals n0; names label them. The
// lengths are fixed parameters (not one variadic slice) so that the check
// allocates nothing on the success path.
func checkLen(op string, names string, n0, n1 int, rest ...int) {
	bad := n1 != n0
	for _, n := range rest {
		bad = bad || n != n0
	}
	if bad {
		ns := append([]int{n0, n1}, rest...)
		panic(fmt.Sprintf("vec.%s: slices of unequal length (%s = %v)", op, names, ns))
	}
}

// checkNonEmpty panics when a reduction without identity gets no elements.
func checkNonEmpty(op string, n int) {
	if n == 0 {
		panic("vec." + op + ": empty slice")
	}
}
