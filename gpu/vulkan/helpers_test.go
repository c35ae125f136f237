//go:build cgo

package vulkan

import (
	"encoding/binary"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// required reports whether SHADERFLOW_REQUIRE_BACKENDS names vulkan (or all).
func required() bool {
	for _, s := range strings.Split(os.Getenv("SHADERFLOW_REQUIRE_BACKENDS"), ",") {
		if s = strings.TrimSpace(strings.ToLower(s)); s == "vulkan" || s == "all" {
			return true
		}
	}
	return false
}

// openDevice opens adapter 0 or skips the test when Vulkan is unavailable
// (fails instead when SHADERFLOW_REQUIRE_BACKENDS requires it). The device
// is closed, and validation errors fail the test, at cleanup.
func openDevice(t testing.TB) *Device {
	t.Helper()
	dev, err := Backend{}.Open(0)
	if err != nil {
		if required() {
			t.Fatalf("vulkan required by SHADERFLOW_REQUIRE_BACKENDS: %v", err)
		}
		t.Skipf("vulkan unavailable: %v", err)
	}
	d := dev.(*Device)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d
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
