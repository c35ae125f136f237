package safetensors

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFloat32RoundTrip(t *testing.T) {
	r := newRand(t)
	vals := make([]float32, 3*5*7)
	for i := range vals {
		vals[i] = float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(40)-20)))
	}
	vals[0], vals[1], vals[2], vals[3] = float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 1e-30
	for _, c := range []struct {
		dt  DType
		rel float64 // half an ulp of the format, relative
		min float64 // smallest normal magnitude
	}{{F32, 0, 0}, {F64, 0, 0}, {F16, 1.0 / 2048, 6.2e-5}, {BF16, 1.0 / 256, 1.2e-38}} {
		tn := FromFloat32("x", c.dt, []int{3, 5, 7}, vals)
		assert.Equal(t, len(vals)*c.dt.Size(), len(tn.Data))
		back, err := tn.Float32()
		require.NoError(t, err)
		for i, v := range vals {
			want, got := float64(v), float64(back[i])
			switch {
			case math.IsInf(want, 0) || want == 0:
				require.Equal(t, want, got, "%s element %d", c.dt, i)
				require.Equal(t, math.Signbit(want), math.Signbit(got))
			case c.dt == F16 && math.Abs(want) >= 65520:
				require.True(t, math.IsInf(got, int(math.Copysign(1, want))), "%s overflow of %g", c.dt, want)
			case math.Abs(want) < c.min: // subnormal or flushed: absolute error
				require.InDelta(t, want, got, c.min*c.rel*2, "%s element %d", c.dt, i)
			default:
				require.InDelta(t, want, got, math.Abs(want)*c.rel, "%s element %d = %g", c.dt, i, want)
			}
		}
		again := FromFloat32("x", c.dt, []int{3, 5, 7}, back) // converting is idempotent
		assert.Equal(t, tn.Data, again.Data, c.dt)
	}
	nan := FromFloat32("n", F16, []int{1}, []float32{float32(math.NaN())})
	back, err := nan.Float32()
	require.NoError(t, err)
	assert.True(t, math.IsNaN(float64(back[0])))
}

func TestInt32Conversions(t *testing.T) {
	r := newRand(t)
	vals := make([]int32, 11)
	for i := range vals {
		vals[i] = int32(r.Uint32())
	}
	vals[0], vals[1] = math.MinInt32, math.MaxInt32
	got, err := FromInt32("i", []int{11}, vals).Int32()
	require.NoError(t, err)
	assert.Equal(t, vals, got)

	cases := []struct {
		dt   DType
		data []byte
		want []int32
	}{
		{Bool, []byte{0, 1, 1}, []int32{0, 1, 1}},
		{U8, []byte{0, 200, 255}, []int32{0, 200, 255}},
		{I8, []byte{0, 200, 255}, []int32{0, -56, -1}},
		{I16, []byte{0xff, 0x7f, 0x00, 0x80}, []int32{32767, -32768}},
		{U16, []byte{0xff, 0xff}, []int32{65535}},
		{U32, []byte{0xff, 0xff, 0xff, 0x7f}, []int32{math.MaxInt32}},
		{I64, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, []int32{-2}},
		{U64, []byte{5, 0, 0, 0, 0, 0, 0, 0}, []int32{5}},
	}
	for _, c := range cases {
		tn := Tensor{Name: "t", DType: c.dt, Shape: []int{len(c.data) / c.dt.Size()}, Data: c.data}
		got, err := tn.Int32()
		require.NoError(t, err, c.dt)
		assert.Equal(t, c.want, got, c.dt)
	}
	for _, bad := range []Tensor{
		{Name: "big", DType: U32, Shape: []int{1}, Data: []byte{0, 0, 0, 0x80}},
		{Name: "big", DType: I64, Shape: []int{1}, Data: []byte{0, 0, 0, 0, 1, 0, 0, 0}},
		{Name: "big", DType: U64, Shape: []int{1}, Data: []byte{0, 0, 0, 0, 0, 0, 0, 0x80}},
		{Name: "float", DType: F32, Shape: []int{0}},
		{Name: "short", DType: I32, Shape: []int{2}, Data: make([]byte, 7)},
	} {
		_, err := bad.Int32()
		assert.Error(t, err, "%s %s", bad.Name, bad.DType)
	}
	for _, bad := range []Tensor{
		{Name: "int", DType: I32, Shape: []int{0}},
		{Name: "fp8", DType: F8E4M3, Shape: []int{1}, Data: []byte{1}},
		{Name: "unknown", DType: "F4", Shape: []int{1}, Data: []byte{1}},
	} {
		_, err := bad.Float32()
		assert.Error(t, err, "%s %s", bad.Name, bad.DType)
	}
}

func TestConstructorsPanic(t *testing.T) {
	assert.PanicsWithValue(t, `safetensors: FromFloat32("w"): 5 values for shape [2 3], want 6`, func() {
		FromFloat32("w", F32, []int{2, 3}, make([]float32, 5))
	})
	assert.PanicsWithValue(t, `safetensors: FromFloat32("w"): dtype "I32" is not F32, F16, BF16 or F64`, func() {
		FromFloat32("w", I32, []int{1}, make([]float32, 1))
	})
	assert.PanicsWithValue(t, `safetensors: FromInt32("i"): negative dimension in shape [-1]`, func() {
		FromInt32("i", []int{-1}, nil)
	})
}

func TestDTypes(t *testing.T) {
	for _, d := range dtypeOrder {
		assert.True(t, d.Valid(), d)
		if dev, ok := d.Device(); ok {
			back, ok := FromDevice(dev)
			assert.True(t, ok)
			assert.Equal(t, d, back)
			assert.Equal(t, dev.Size(), d.Size(), d)
		}
	}
	for i := 1; i < len(dtypeOrder); i++ { // the order is by increasing alignment
		assert.LessOrEqual(t, dtypeOrder[i-1].Size(), dtypeOrder[i].Size())
	}
	assert.False(t, DType("F4").Valid())
	_, ok := FromDevice(0)
	assert.False(t, ok)
}
