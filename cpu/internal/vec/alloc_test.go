package vec

import "testing"

// The kernels run per chunk of every fused program: they must not allocate.
func TestKernelsDoNotAllocate(t *testing.T) {
	a := make([]float32, 100)
	b := make([]float32, 100)
	c := make([]float32, 100)
	if n := testing.AllocsPerRun(100, func() { Add(c, a, b); Fma(c, a, b, c); Exp(c, a) }); n != 0 {
		t.Fatalf("%v allocs", n)
	}
}
