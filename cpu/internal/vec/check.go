package vec

import "fmt"

// checkLen panics unless every length in ns equals ns[0]; names label them.
func checkLen(op string, names string, ns ...int) {
	for _, n := range ns[1:] {
		if n != ns[0] {
			panic(fmt.Sprintf("vec.%s: slices of unequal length (%s = %v)", op, names, ns))
		}
	}
}

// checkNonEmpty panics when a reduction without identity gets no elements.
func checkNonEmpty(op string, n int) {
	if n == 0 {
		panic("vec." + op + ": empty slice")
	}
}
