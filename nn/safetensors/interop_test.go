package safetensors

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The interop tensors, built from the same formulas as testdata/interop.py.

var interopMetadata = map[string]string{"format": "pt"}

// interopFloats mirrors floats() in interop.py: special values, then
// ((i*7919)%1000-500)/37 * 2^(i%11-5) computed in float64, rounded to float32.
func interopFloats(n int) []float32 {
	nan := math.Float32frombits(0x7fc00000) // what numpy makes of float('nan')
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), nan,
		float32(1e-40), float32(3e-6), 70000, 65519, float32(1.0 / 3.0)}
	v := append([]float32(nil), specials[:min(n, len(specials))]...)
	for i := len(v); i < n; i++ {
		v = append(v, float32(float64((i*7919)%1000-500)/37.0*math.Ldexp(1, i%11-5)))
	}
	return v
}

func interopTensors() []Tensor {
	bias := interopFloats(5)
	for i := range bias {
		bias[i] *= 3
	}
	// See interop.py: the bfloat16 tensor skips the NaN (element 4), whose
	// bfloat16 bits differ between torch's conversion paths.
	noNaN := interopFloats(21)
	noNaN = append(noNaN[:4], noNaN[5:]...)
	ints := []int32{math.MinInt32, math.MaxInt32}
	for i := 2; i < 6; i++ {
		ints = append(ints, int32(int64(i)*2654435761%(1<<32)-(1<<31)))
	}
	var longs, doubles, u8, mask []byte
	for _, v := range []int64{math.MinInt64, math.MaxInt64, 1234567890123, -5} {
		longs = binary.LittleEndian.AppendUint64(longs, uint64(v))
	}
	for _, v := range []float64{1.0 / 3.0, -2.5e300, 5e-324} {
		doubles = binary.LittleEndian.AppendUint64(doubles, math.Float64bits(v))
	}
	for i := range 5 {
		u8 = append(u8, byte(i*37%256))
	}
	for i := range 4 {
		mask = append(mask, map[bool]byte{true: 1}[i%3 == 0])
	}
	return []Tensor{
		FromFloat32("weight", F32, []int{3, 5, 7}, interopFloats(105)),
		FromFloat32("bias", F32, []int{5}, bias),
		FromFloat32("scalar", F32, []int{}, []float32{3.5}),
		FromFloat32("half", F16, []int{2, 9}, interopFloats(18)),
		FromFloat32("empty", F16, []int{0, 3}, nil),
		FromFloat32("brain", BF16, []int{4, 5}, noNaN),
		{Name: "double", DType: F64, Shape: []int{3}, Data: doubles},
		FromInt32("ints", []int{2, 3}, ints),
		{Name: "longs", DType: I64, Shape: []int{4}, Data: longs},
		{Name: "bytes", DType: U8, Shape: []int{5}, Data: u8},
		{Name: "mask", DType: Bool, Shape: []int{2, 2}, Data: mask},
	}
}

// checkInterop asserts that f holds exactly the interop tensors, bit for bit.
func checkInterop(t *testing.T, f *File) {
	t.Helper()
	assert.Equal(t, interopMetadata, f.Metadata)
	want := interopTensors()
	require.Len(t, f.Tensors, len(want))
	for _, w := range want {
		got, ok := f.Get(w.Name)
		require.True(t, ok, "missing %s", w.Name)
		assert.Equal(t, w.DType, got.DType, w.Name)
		assert.Equal(t, w.Shape, got.Shape, w.Name)
		assert.Equal(t, w.Data, got.Data, "%s (%s) data", w.Name, w.DType)
	}
}

// TestGoldenFiles reads the committed files that Python wrote and checks that
// Write reproduces them byte for byte.
func TestGoldenFiles(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.safetensors")
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no golden files in testdata")
	want := encode(t, interopTensors(), interopMetadata)
	for _, p := range paths {
		f, err := ReadFile(p)
		require.NoError(t, err, p)
		checkInterop(t, f)
		golden, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, golden, want, "%s: Write's bytes differ", p)
	}
}

// TestPythonInterop has Python write the interop tensors for Go to read, and
// Go write them for Python to check, with the safetensors package ("lib")
// and with plain numpy/torch following the format ("spec"). Each mode is
// skipped, with the reason, when /usr/bin/python3 cannot import what it needs.
func TestPythonInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the Python interop test (starts python3 with torch)")
	}
	const python = "/usr/bin/python3"
	script, err := filepath.Abs("testdata/interop.py")
	require.NoError(t, err)
	for _, mode := range []struct{ name, imports string }{
		{"lib", "import numpy, torch, safetensors.torch"},
		{"spec", "import numpy, torch"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			if out, err := runPython(python, "-c", mode.imports); err != nil {
				t.Skipf("%s cannot %q: %v: %s", python, mode.imports, err, lastLine(out))
			}
			dir := t.TempDir()
			fromPy := filepath.Join(dir, "py.safetensors")
			out, err := runPython(python, script, "write", mode.name, fromPy)
			require.NoError(t, err, out)
			f, err := ReadFile(fromPy)
			require.NoError(t, err)
			checkInterop(t, f)

			fromGo := filepath.Join(dir, "go.safetensors")
			require.NoError(t, WriteFile(fromGo, interopTensors(), interopMetadata))
			out, err = runPython(python, script, "check", mode.name, fromGo)
			require.NoError(t, err, out)
			assert.Equal(t, "ok", lastLine(out))
		})
	}
}

func runPython(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
	return string(out), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
