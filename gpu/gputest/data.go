package gputest

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// Encode returns the bytes of vals (compute-type values as float64) stored
// as dtype dt.
func Encode(dt device.DType, vals []float64) []byte {
	b := make([]byte, len(vals)*dt.Size())
	for i, v := range vals {
		switch dt {
		case device.Float32:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(v)))
		case device.Float16:
			binary.LittleEndian.PutUint16(b[2*i:], device.Float32ToFloat16(float32(v)))
		case device.BFloat16:
			binary.LittleEndian.PutUint16(b[2*i:], device.Float32ToBFloat16(float32(v)))
		case device.Int32:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(v)))
		case device.Bool:
			if v != 0 {
				b[i] = 1
			}
		case device.Uint8, device.Int8: // the low byte of an Int32 value
			b[i] = byte(device.StoreInt32(int32(v), dt))
		}
	}
	return b
}

// Decode is the inverse of Encode.
func Decode(dt device.DType, b []byte) []float64 {
	n := len(b) / dt.Size()
	out := make([]float64, n)
	for i := range out {
		switch dt {
		case device.Float32:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		case device.Float16:
			out[i] = float64(device.Float16ToFloat32(binary.LittleEndian.Uint16(b[2*i:])))
		case device.BFloat16:
			out[i] = float64(device.BFloat16ToFloat32(binary.LittleEndian.Uint16(b[2*i:])))
		case device.Int32:
			out[i] = float64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		case device.Bool:
			if b[i] != 0 {
				out[i] = 1
			}
		case device.Uint8:
			out[i] = float64(b[i])
		case device.Int8:
			out[i] = float64(int8(b[i]))
		}
	}
	return out
}

// Upload allocates a buffer holding vals as dt and frees it at the end of
// the test.
func Upload(t testing.TB, d device.Device, dt device.DType, vals []float64) device.Buffer {
	t.Helper()
	b := Alloc(t, d, int64(len(vals)*dt.Size()))
	require.NoError(t, d.Write(b, 0, Encode(dt, vals)))
	return b
}

// Alloc allocates n bytes filled with the poison byte 0xAB (so that an
// unwritten element cannot pass a check) and frees them at the end of the
// test.
func Alloc(t testing.TB, d device.Device, n int64) device.Buffer {
	t.Helper()
	b, err := d.Alloc(n)
	require.NoError(t, err)
	t.Cleanup(func() { d.Free(b) })
	if n > 0 {
		poison := make([]byte, n)
		for i := range poison {
			poison[i] = 0xAB
		}
		require.NoError(t, d.Write(b, 0, poison))
	}
	return b
}

// Download reads n elements of dtype dt from b starting at element off.
func Download(t testing.TB, d device.Device, b device.Buffer, dt device.DType, off, n int) []float64 {
	t.Helper()
	raw := make([]byte, n*dt.Size())
	require.NoError(t, d.Read(b, int64(off*dt.Size()), raw))
	return Decode(dt, raw)
}
