package tensor_test

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// Integer reductions are exact, as in PyTorch: Sum of Int32 is Int64, Max
// and Min keep Int32 (issue 15: a Float32 accumulator gave 16777216).
func TestInt32ReductionsExact(t *testing.T) {
	for _, fusion := range []bool{true, false} {
		prev := tensor.SetFusion(fusion)
		d := openCPU(t)
		x := tensor.FromInt32s(d, []int32{16777217, 0, -2147483647, 2147483647, 5, 16777219}, 3, 2)
		s := x.Sum()
		require.Equal(t, tensor.Int64, s.DType())
		v, err := s.Int64s()
		require.NoError(t, err)
		require.Equal(t, []int64{16777217 + 16777219 + 5}, v)

		rows, err := x.Sum(1).Int64s()
		require.NoError(t, err)
		require.Equal(t, []int64{16777217, 0, 16777224}, rows)

		big := tensor.FromInt32s(d, []int32{2147483647, 2147483647, 2147483647}, 3)
		b, err := big.Sum().Int64s()
		require.NoError(t, err)
		require.Equal(t, []int64{3 * 2147483647}, b, "sums beyond 2^31 do not wrap")

		mx := x.Max(1)
		require.Equal(t, tensor.Int32, mx.DType())
		m, err := mx.Int32s()
		require.NoError(t, err)
		require.Equal(t, []int32{16777217, 2147483647, 16777219}, m)
		mn, err := x.Min(0).Int32s()
		require.NoError(t, err)
		require.Equal(t, []int32{-2147483647, 0}, mn)
		am, err := tensor.FromInt32s(d, []int32{16777216, 16777217}, 2).ArgMax(0).Int32s()
		require.NoError(t, err)
		require.Equal(t, []int32{1}, am)

		p, err := tensor.FromInt32s(d, []int32{65536, 65536, 3}, 3).Prod().Int64s()
		require.NoError(t, err)
		require.Equal(t, []int64{3 << 32}, p)

		c := tensor.FromBools(d, []bool{true, true, false, true}, 4)
		cs, err := c.Sum().Int64s()
		require.NoError(t, err)
		require.Equal(t, []int64{3}, cs)
		cum, err := c.Cumsum(0).Int64s()
		require.NoError(t, err)
		require.Equal(t, []int64{1, 2, 2, 3}, cum)
		require.Equal(t, tensor.Int64, c.Cumsum(0).DType())
		tensor.SetFusion(prev)
	}
}

// MatMul of integers is refused with a UsageError rather than rounded in
// Float32.
func TestIntegerMatMulRefused(t *testing.T) {
	d := openCPU(t)
	a := tensor.FromInt32s(d, []int32{1, 2, 3, 4}, 2, 2)
	require.PanicsWithError(t, "tensor.MatMul: int32 @ int32: integer matrix products are not supported (a Float32 product would round sums past 2^24); cast the operands to Float32 or Float64", func() { a.MatMul(a) })
	r := tensor.Catch(func() { a.MatMul(a) })
	require.ErrorContains(t, r, "int32 @ int32")
}

// Float64 tensors compute in float64 on the CPU, MatMul included.
func TestFloat64ComputesInFloat64(t *testing.T) {
	d := openCPU(t)
	x := tensor.FromFloat64s(d, []float64{1, 1e-10, 3}, 3)
	big := tensor.FromFloat64s(d, []float64{1, 1, 1}, 3)
	v, err := x.Add(big).Sub(big).Exp().Log().Float64s()
	require.NoError(t, err)
	require.InDeltaSlice(t, []float64{1, 1e-10, 3}, v, 1e-6)
	require.InDelta(t, 1e-10, v[1], 1e-15, "float32 would give 0")
	a := tensor.FromFloat64s(d, []float64{1, 2, 3, 4}, 2, 2)
	b := tensor.FromFloat64s(d, []float64{1e-9, 0, 0, 1e9}, 2, 2)
	m := a.MatMul(b)
	require.Equal(t, tensor.Float64, m.DType())
	mv, err := m.Float64s()
	require.NoError(t, err)
	small, large := 1e-9, 1e9
	require.Equal(t, []float64{small, 2 * large, 3 * small, 4 * large}, mv, "float64 products, not float32")
	s, err := tensor.FromFloat64s(d, []float64{1, math.Pow(2, -40)}, 2).Sum().Float64s()
	require.NoError(t, err)
	require.Equal(t, []float64{1 + math.Pow(2, -40)}, s)
}

// Gradients of Float64 tensors are Float64 and computed in float64.
func TestFloat64Gradients(t *testing.T) {
	d := openCPU(t)
	x := tensor.FromFloat64s(d, []float64{1e-9, 2, -3}, 3).SetRequiresGrad(true)
	y := x.Mul(x).Exp().Sum() // dy/dx = 2x e^(x^2)
	require.NoError(t, y.Backward())
	g := x.Grad()
	require.Equal(t, tensor.Float64, g.DType())
	v, err := g.Float64s()
	require.NoError(t, err)
	for i, xi := range []float64{1e-9, 2, -3} {
		require.InDelta(t, 2*xi*math.Exp(xi*xi), v[i], 1e-12*math.Abs(2*xi*math.Exp(xi*xi)))
	}
}
