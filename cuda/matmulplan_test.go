package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// mmKernel is a matrix product over batch with A transposed in its last
// two dimensions and broadcast along batch dimension 0, B row-major, one
// epilogue input (a row bias) and the given epilogue and outputs' dtypes.
func mmKernel(batch []int, m, n, k int, epi device.Program, outs ...device.DType) *device.MatMulKernel {
	nb := len(batch)
	shape := func(r, c int) []int { return append(append([]int{}, batch...), r, c) }
	buf := fakeBuf(1 << 30)
	a := device.View{Buf: buf, DType: device.Float32, Shape: shape(m, k), Strides: device.ContiguousStrides(shape(k, m))}
	a.Strides[nb], a.Strides[nb+1] = 1, m
	a.Strides[0] = 0
	b := device.View{Buf: buf, DType: device.Float32, Shape: shape(k, n), Strides: device.ContiguousStrides(shape(k, n)), Offset: 5}
	bias := device.View{Buf: buf, DType: device.Float32, Shape: shape(m, n), Strides: make([]int, nb+2)}
	bias.Strides[nb+1] = 1
	kk := &device.MatMulKernel{Batch: batch, M: m, N: n, K: k, A: a, B: b, EpilogueInputs: []device.View{bias}, Epilogue: epi}
	for _, dt := range outs {
		kk.Outputs = append(kk.Outputs, device.View{Buf: buf, DType: dt, Shape: shape(m, n), Strides: device.ContiguousStrides(shape(m, n)), Offset: 2})
	}
	return kk
}

// addConst is an epilogue adding the product, the bias and c.
func addConst(c float64) device.Program {
	var e device.Builder
	f32 := device.Float32
	e.Output(e.Binary(device.OpAdd, e.Binary(device.OpAdd, e.Input(0, f32), e.Input(1, f32)), e.Const(c, f32)))
	return e.P
}

func TestMatMulPlan(t *testing.T) {
	f32 := device.Float32
	k := mmKernel([]int{3, 2}, 70, 130, 9, addConst(1.5), f32)
	require.NoError(t, k.Validate())
	w, err := planMatMul(k, []uint64{100, 200, 300, 400})
	require.NoError(t, err)
	require.Len(t, w, 1)
	l := mmLayoutOf(k)
	p := w[0]
	assert.Equal(t, []int64{3 * 2 * 2 * 3, 2, 0, 3, 2}, p[:5], "tiles (6 batches of 2x3), rank, base, batch shape")
	assert.Equal(t, []int64{70, 130, 9, 2, 3}, p[l.dims():l.dims()+5], "M, N, K, tiles along M and N")
	assert.Equal(t, []int64{100, 0, 1, 70, 0, 0, 630}, p[l.a():l.a()+7], "A: address, offset, M and K strides, loads along M, batch strides")
	assert.Equal(t, []int64{200, 5, 130, 1, 1, 2340, 1170}, p[l.b():l.b()+7], "B: address, offset, K and N strides, loads along N, batch strides")
	assert.Equal(t, []int64{300, 0, 0, 1, 0, 0}, []int64{p[l.epPtr()], p[l.epOff()], p[l.epSM()], p[l.epSN()], p[l.epStride()], p[l.epStride()+1]})
	assert.Equal(t, []int64{400, 2}, []int64{p[l.outPtr()], p[l.outOff()]})
	assert.Equal(t, int64(0x3fc00000), p[l.imm()], "the constant's float32 bits")
}

func TestMatMulPlanHostLoopsAndEmpty(t *testing.T) {
	f32 := device.Float32
	// A broadcast along the first batch dimension only keeps the first
	// dimension apart from the other nine, which merge; bias strides of
	// zero everywhere merge too, so ten batch dimensions become two.
	batch := []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2}
	k := mmKernel(batch, 3, 4, 5, addConst(0), f32)
	w, err := planMatMul(k, []uint64{1, 2, 3, 4})
	require.NoError(t, err)
	require.Len(t, w, 1)
	assert.Equal(t, []int64{1024, 2, 0, 2, 512}, w[0][:5])
	// Bias batch strides that grow inward merge nowhere: the host loops
	// over the first two dimensions.
	for i := range batch {
		k.EpilogueInputs[0].Strides[i] = 12 << i
	}
	w, err = planMatMul(k, []uint64{1, 2, 3, 4})
	require.NoError(t, err)
	require.Len(t, w, 4)
	l := mmLayoutOf(k)
	for i, p := range w {
		assert.Equal(t, []int64{256, 8, int64(256 * i)}, p[:3])
		assert.Equal(t, int64(2+256*i*12), p[l.outOff()], "launch %d's output offset", i)
		assert.Equal(t, int64(i/2*12+i%2*24), p[l.epOff()], "launch %d's bias offset", i)
	}
	k = mmKernel([]int{4}, 0, 3, 2, addConst(0), f32)
	w, err = planMatMul(k, []uint64{1, 2, 3, 4})
	require.NoError(t, err)
	assert.Empty(t, w, "an empty product launches nothing")
}

func TestMatMulPlanRefusesParameterOverflow(t *testing.T) {
	f32 := device.Float32
	var e device.Builder
	x := e.Input(0, f32)
	for i := 0; i < 500; i++ {
		x = e.Binary(device.OpAdd, x, e.Const(float64(i), f32))
	}
	e.Output(x)
	k := mmKernel([]int{2}, 3, 4, 5, e.P, f32)
	k.EpilogueInputs = nil
	require.NoError(t, k.Validate())
	_, err := planMatMul(k, []uint64{1, 2, 3})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrNotImplemented), "%v", err)
	assert.Contains(t, err.Error(), "kernel parameters")
}

func TestMatMulSignatureAndSource(t *testing.T) {
	f32, f16 := device.Float32, device.Float16
	a := mmKernel([]int{2}, 3, 4, 5, addConst(1), f32)
	b := mmKernel([]int{7, 2}, 30, 40, 50, addConst(2), f32)
	c := mmKernel([]int{2}, 3, 4, 5, addConst(1), f16)
	assert.Equal(t, mmSignature(a), mmSignature(b), "shapes, strides and constants are parameters")
	assert.NotEqual(t, mmSignature(a), mmSignature(c), "an output's dtype is not")
	assert.Equal(t, renderMatMul(a), renderMatMul(b))
	src := renderMatMul(c)
	for _, want := range []string{"__syncthreads();", "__shared__ float as[SF_MM_BK]", "SF_MATH(fmaf)(av[i], bv[j], acc[i][j])",
		"sf_st_f16(p.out[0], p.out_off[0] + o, r", "sf_ld_f32(p.ep[0], f0 + gm * p.ep_sm[0] + gn * p.ep_sn[0])"} {
		assert.Contains(t, src, want)
	}
	assert.False(t, strings.Contains(src, "pos"), "no position without an index or random op")
}
