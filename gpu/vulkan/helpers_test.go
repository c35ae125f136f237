//go:build cgo

package vulkan

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// openDevice opens adapter 0 or skips the test when Vulkan is unavailable
// (fails instead when SHADERFLOW_REQUIRE_BACKENDS names vulkan); the device
// is closed at cleanup.
func openDevice(t testing.TB) *Device {
	t.Helper()
	return gputest.Open(t, "vulkan").(*Device)
}

// f32Bytes and bytesF32 convert float32 slices to and from little-endian bytes.
func f32Bytes(xs []float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	xs := make([]float32, len(b)/4)
	for i := range xs {
		xs[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return xs
}

// i32Bytes converts int32s to little-endian bytes.
func i32Bytes(xs []int32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

// upload allocates a buffer holding data.
func upload(t testing.TB, d *Device, data []byte) device.Buffer {
	t.Helper()
	b, err := d.Alloc(int64(len(data)))
	require.NoError(t, err)
	require.NoError(t, d.Write(b, 0, data))
	return b
}

// download reads n bytes of b.
func download(t testing.TB, d *Device, b device.Buffer, n int) []byte {
	t.Helper()
	out := make([]byte, n)
	require.NoError(t, d.Read(b, 0, out))
	return out
}
