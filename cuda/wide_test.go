//go:build cgo && linux

package cuda

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// uploadView returns a buffer holding raw and a contiguous view of it.
func uploadView(t *testing.T, d *Device, dt device.DType, raw []byte, n int) device.View {
	t.Helper()
	b, err := d.Alloc(int64(len(raw)))
	require.NoError(t, err)
	t.Cleanup(func() { d.Free(b) })
	require.NoError(t, d.Write(b, 0, raw))
	return device.Contiguous(b, dt, 0, []int{n})
}

// download reads a view's bytes.
func download(t *testing.T, d *Device, v device.View) []byte {
	t.Helper()
	out := make([]byte, v.NumElements()*v.DType.Size())
	require.NoError(t, d.Read(v.Buf, int64(v.Offset*v.DType.Size()), out))
	return out
}

func i64Bytes(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func f64Bytes(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

// TestWideDTypes runs generated kernels over Int64, Float64, Uint8 and Int8
// through the fake (wrapping int64 arithmetic, float64 math, casts, the
// 8-bit stores, 8-byte copies and gathers), checks them against the
// contract's scalar definitions, and compiles the sources with clang-19 for
// the GPU; a reduction accumulating in Int64 is refused by name.
func TestWideDTypes(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	ints := []int64{3 << 31, -(5 << 33) - 7, 1<<62 + 1, -1}
	floats := []float64{1e-300, 2.5, -700.25, 1e30}
	bytes := []byte{200, 5, 255, 128}
	a := uploadView(t, d, device.Int64, i64Bytes(ints...), 4)
	x := uploadView(t, d, device.Float64, f64Bytes(floats...), 4)
	u := uploadView(t, d, device.Uint8, bytes, 4)

	var b device.Builder
	ia, fx, ux := b.Input(0, device.Int64), b.Input(1, device.Float64), b.Input(2, device.Uint8)
	prod := b.Binary(device.OpAdd, b.Binary(device.OpMul, ia, ia), b.Const(1<<40, device.Int64))
	b.Output(prod)                                                                    // int64, wrapping
	b.Output(b.Cast(ia, device.Int32))                                                // keeps the low 32 bits
	b.Output(b.Unary(device.OpExp, b.Unary(device.OpNeg, b.Unary(device.OpAbs, fx)))) // float64
	b.Output(b.Cast(fx, device.Int64))                                                // saturates
	b.Output(b.Binary(device.OpAdd, ux, b.Const(100, device.Int32)))                  // stored as uint8
	b.Output(b.Cast(b.Binary(device.OpDiv, ia, b.Const(-3, device.Int64)), device.Float64))
	outs := []device.DType{device.Int64, device.Int32, device.Float64, device.Int64, device.Uint8, device.Float64}
	views := make([]device.View, len(outs))
	for i, dt := range outs {
		buf, err := d.Alloc(int64(4 * dt.Size()))
		require.NoError(t, err)
		t.Cleanup(func() { d.Free(buf) })
		views[i] = device.Contiguous(buf, dt, 0, []int{4})
	}
	require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: []int{4}, Inputs: []device.View{a, x, u}, Program: b.P, Outputs: views}))
	le := binary.LittleEndian
	got := [6][]byte{}
	for i, v := range views {
		got[i] = download(t, d, v)
	}
	for i := range 4 {
		ai := ints[i]
		assert.Equal(t, device.BinaryI64(device.OpAdd, device.BinaryI64(device.OpMul, ai, ai), 1<<40), int64(le.Uint64(got[0][8*i:])), "a*a+2^40 at %d", i)
		assert.Equal(t, int32(ai), int32(le.Uint32(got[1][4*i:])), "int32(a) at %d", i)
		assert.Equal(t, math.Exp(-math.Abs(floats[i])), math.Float64frombits(le.Uint64(got[2][8*i:])), "exp(-|x|) at %d", i)
		assert.Equal(t, device.FloatToInt64(floats[i]), int64(le.Uint64(got[3][8*i:])), "int64(x) at %d", i)
		assert.Equal(t, uint8(int32(bytes[i])+100), got[4][i], "u+100 at %d", i)
		assert.Equal(t, float64(device.BinaryI64(device.OpDiv, ai, -3)), math.Float64frombits(le.Uint64(got[5][8*i:])), "a floordiv -3 at %d", i)
	}

	// Copy and Gather move 8-byte elements.
	rev := device.View{Buf: a.Buf, DType: device.Int64, Offset: 3, Shape: []int{4}, Strides: []int{-1}}
	cp := views[0]
	require.NoError(t, d.Copy(&device.CopyKernel{Dst: cp, Src: rev}))
	assert.Equal(t, i64Bytes(ints[3], ints[2], ints[1], ints[0]), download(t, d, cp))
	idx := uploadView(t, d, device.Int32, []byte{3, 0, 0, 0, 1, 0, 0, 0}, 2)
	g := device.Contiguous(views[2].Buf, device.Float64, 0, []int{2})
	require.NoError(t, d.Gather(&device.GatherKernel{Axis: 0, Src: x, Index: idx, Out: g}))
	assert.Equal(t, f64Bytes(floats[3], floats[1]), download(t, d, g))

	// Int64 accumulators are refused, naming the type.
	var pb device.Builder
	pb.Output(pb.Input(0, device.Int64))
	sum := device.Contiguous(views[0].Buf, device.Int64, 0, []int{})
	err := d.Reduce(&device.ReduceKernel{Op: device.ReduceSum, OutShape: []int{}, RedShape: []int{4},
		Inputs: []device.View{a}, Prologue: pb.P, Epilogue: device.Identity(device.Int64), Outputs: []device.View{sum}})
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "int64") && strings.Contains(err.Error(), "cuda"), err.Error())

	t.Run("PTX", func(t *testing.T) { compileSourcesToPTX(t, generatedSources(t, f, ewEntry), ewEntry) })
}
