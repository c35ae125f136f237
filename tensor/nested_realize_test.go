package tensor_test

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// TestNestedRealizationKeepsAbsorbedProducer builds e + sum(e @ c) with
// e = (a @ b) + 1 and every intermediate released: the kernel for the sum
// inlines e and absorbs a @ b as its epilogue, then realizing the reduction
// realizes e on its own (through the second matmul), which would free a @ b
// if the outer kernel did not hold it: the outer kernel must then read e
// rather than run a freed product.
func TestNestedRealizationKeepsAbsorbedProducer(t *testing.T) {
	dev := openCPU(t)
	const m, k, n, p = 5, 4, 3, 6
	av, bv, cv := ramp(m*k, 0.1), ramp(k*n, -0.2), ramp(n*p, 0.05)
	a := tensor.FromFloat32s(dev, av, m, k)
	b := tensor.FromFloat32s(dev, bv, k, n)
	c := tensor.FromFloat32s(dev, cv, n, p)
	ab := a.MatMul(b)
	e := ab.AddScalar(1)
	ab.Release()
	ec := e.MatMul(c)
	r := ec.SumKeepDim(1)
	ec.Release()
	out := e.Add(r)
	e.Release()
	r.Release()
	got, err := out.Float32s()
	require.NoError(t, err)

	// The float64 reference.
	ev := make([]float64, m*n)
	for i := range m {
		for j := range n {
			s := 1.0
			for q := range k {
				s += float64(av[i*k+q]) * float64(bv[q*n+j])
			}
			ev[i*n+j] = s
		}
	}
	for i := range m {
		sum := 0.0
		for q := range p {
			for j := range n {
				sum += ev[i*n+j] * float64(cv[j*p+q])
			}
		}
		for j := range n {
			require.InDelta(t, ev[i*n+j]+sum, float64(got[i*n+j]), 1e-4*math.Max(1, math.Abs(sum)), "element %d,%d", i, j)
		}
	}
}

// ramp returns n values start, start+step, ... wrapped into [-1, 1].
func ramp(n int, step float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(math.Mod(float64(step)*float64(i+1)+1, 2)) - 1
	}
	return v
}

// TestNestedRealizationKeepsKernelInputs builds (x·2) + sum((x·2) @ c) with
// x released after use: the outer kernel reads x's block and inlines x·2,
// and realizing the sum realizes x·2 on its own, dropping the last other
// reference to x. x's block must stay x's until the outer kernel has run,
// although the matmul's result, of x's size, is allocated meanwhile.
func TestNestedRealizationKeepsKernelInputs(t *testing.T) {
	dev := openCPU(t)
	const m, n = 4, 8
	xv, cv := ramp(m*n, 0.3), ramp(n*n, -0.15)
	x := tensor.FromFloat32s(dev, xv, m, n)
	c := tensor.FromFloat32s(dev, cv, n, n)
	x2 := x.MulScalar(2)
	x.Release()
	prod := x2.MatMul(c)
	r := prod.SumKeepDim(1)
	prod.Release()
	out := x2.Add(r)
	x2.Release()
	r.Release()
	got, err := out.Float32s()
	require.NoError(t, err)
	for i := range m {
		sum := 0.0
		for j := range n {
			for q := range n {
				sum += 2 * float64(xv[i*n+q]) * float64(cv[q*n+j])
			}
		}
		for j := range n {
			require.InDelta(t, 2*float64(xv[i*n+j])+sum, float64(got[i*n+j]), 1e-4*math.Max(1, math.Abs(sum)), "element %d,%d", i, j)
		}
	}
}
