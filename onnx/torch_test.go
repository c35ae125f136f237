package onnx

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	// Every backend, so that the tests find whichever are present.
	_ "github.com/shaderflow/shaderflow/tensor/backends"
)

var exported struct {
	once sync.Once
	dir  string
	err  error
}

// torchExports runs testdata/export.py once per test binary and returns the
// directory of the exported models, or skips saying why it cannot (fails
// instead when SHADERFLOW_REQUIRE_TORCH=1).
func torchExports(t *testing.T) string {
	t.Helper()
	exported.once.Do(func() {
		py := "/usr/bin/python3"
		if out, err := exec.Command(py, "-c", "import torch, torchvision, onnx").CombinedOutput(); err != nil {
			exported.err = fmt.Errorf("%s cannot import torch, torchvision and onnx (Debian: python3-torch, python3-torchvision, python3-onnx): %v %s", py, err, lastLine(out))
			return
		}
		dir, err := os.MkdirTemp("", "onnx-exports")
		if err != nil {
			exported.err = err
			return
		}
		cmd := exec.Command(py, "testdata/export.py", dir)
		cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			exported.err = fmt.Errorf("export.py: %v\n%s", err, out)
			return
		}
		exported.dir = dir
	})
	if exported.err != nil {
		if os.Getenv("SHADERFLOW_REQUIRE_TORCH") == "1" {
			t.Fatalf("SHADERFLOW_REQUIRE_TORCH=1: %v", exported.err)
		}
		t.Skip(exported.err)
	}
	return exported.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if exported.dir != "" {
		os.RemoveAll(exported.dir)
	}
	os.Exit(code)
}

func lastLine(b []byte) string {
	s := string(b)
	if len(s) > 300 {
		s = s[len(s)-300:]
	}
	return s
}

// readPB reads a serialized TensorProto (the backend test data's format).
func readPB(t *testing.T, path string) *hostValue {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	tp, err := decodeTensor(b)
	require.NoError(t, err, path)
	h, err := tensorValue(&tp, nil)
	require.NoError(t, err, path)
	return h
}

// readPBs reads dir/prefix_0.pb, prefix_1.pb, ... until one is missing.
func readPBs(t *testing.T, dir, prefix string) []*hostValue {
	var out []*hostValue
	for i := 0; ; i++ {
		p := filepath.Join(dir, fmt.Sprintf("%s_%d.pb", prefix, i))
		if _, err := os.Stat(p); err != nil {
			return out
		}
		out = append(out, readPB(t, p))
	}
}

// openBackend opens a backend or skips the test saying why (fails instead
// when SHADERFLOW_REQUIRE_BACKENDS names it).
func openBackend(t *testing.T, name string) *tensor.Device {
	t.Helper()
	dev, err := tensor.Open(name)
	if err != nil && gputest.Required(name) {
		t.Fatalf("backend %s is required by %s: %v", name, gputest.RequireEnv, err)
	}
	if err != nil {
		t.Skipf("backend %s: %v", name, err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

// upload places test inputs on dev.
func upload(t *testing.T, dev *tensor.Device, hs []*hostValue) []*tensor.Tensor {
	ts := make([]*tensor.Tensor, len(hs))
	for i, h := range hs {
		x, err := toDevice(dev, h)
		require.NoError(t, err)
		ts[i] = x
	}
	return ts
}

// assertClose compares got with want: every element within
// atol*max|want| + rtol*|want|.
func assertClose(t *testing.T, what string, got *tensor.Tensor, want *hostValue, atol, rtol float64) {
	t.Helper()
	require.Equal(t, want.shape, got.Shape(), what)
	g, err := fromDevice(want.dt, got)
	require.NoError(t, err, what)
	scale := 0.0
	for k := range want.size() {
		scale = math.Max(scale, math.Abs(want.at(k)))
	}
	worst, at := 0.0, -1
	for k := range want.size() {
		w, x := want.at(k), g.at(k)
		d := math.Abs(w - x)
		if math.IsInf(w, 0) && w == x {
			continue
		}
		if math.IsNaN(d) || d > atol*scale+rtol*math.Abs(w) {
			if math.IsNaN(d) || d > worst {
				worst, at = d, k
			}
		}
	}
	if at >= 0 {
		t.Fatalf("%s: element %d is %g, PyTorch gives %g (scale %g)", what, at, g.at(at), want.at(at), scale)
	}
}

// runExport loads an exported model on dev, runs it on the saved inputs and
// compares with PyTorch's outputs.
func runExport(t *testing.T, dev *tensor.Device, dir string, atol, rtol float64) {
	t.Helper()
	m, err := Load(dev, filepath.Join(dir, "model.onnx"))
	require.NoError(t, err)
	outs, err := m.Run(upload(t, dev, readPBs(t, dir, "input"))...)
	require.NoError(t, err)
	want := readPBs(t, dir, "output")
	require.Len(t, outs, len(want))
	for i := range want {
		assertClose(t, fmt.Sprintf("%s output %d", filepath.Base(dir), i), outs[i], want[i], atol, rtol)
	}
}

var exportNames = []string{"mlp", "cnn", "resnet18", "resnet18_train", "gpt", "encoder", "wideconvs"}

func TestTorchExportsOnCPU(t *testing.T) {
	dir := torchExports(t)
	dev := openBackend(t, "cpu")
	for _, name := range exportNames {
		t.Run(name, func(t *testing.T) { runExport(t, dev, filepath.Join(dir, name), 1e-5, 1e-4) })
	}
}

// TestTorchExportsOnGPUs runs the exported models on the portable GPU
// backends (lavapipe in CI, where they are slow: ResNet-18 is left to the
// CPU test unless SHADERFLOW_ONNX_GPU_MODELS lists it, as in
// SHADERFLOW_ONNX_GPU_MODELS=mlp,cnn,gpt,encoder,wideconvs,resnet18,resnet18_train).
func TestTorchExportsOnGPUs(t *testing.T) {
	dir := torchExports(t)
	for _, backend := range []string{"vulkan", "webgpu"} {
		t.Run(backend, func(t *testing.T) {
			dev := openBackend(t, backend)
			names := []string{"mlp", "cnn", "gpt", "encoder", "wideconvs"}
			if v := os.Getenv("SHADERFLOW_ONNX_GPU_MODELS"); v != "" {
				names = strings.Split(v, ",")
			}
			for _, name := range names {
				t.Run(name, func(t *testing.T) { runExport(t, dev, filepath.Join(dir, name), 1e-4, 1e-3) })
			}
		})
	}
}

// TestShapeArithmeticIsEvaluatedOncePerShape runs the exported GPT (whose
// graph computes its reshapes from Shape) on inputs of two shapes and again
// on the first: the third run takes its shape arithmetic from the first and
// gives the same outputs.
func TestShapeArithmeticIsEvaluatedOncePerShape(t *testing.T) {
	dir := filepath.Join(torchExports(t), "gpt")
	dev := openBackend(t, "cpu")
	m, err := Load(dev, filepath.Join(dir, "model.onnx"))
	require.NoError(t, err)
	in := upload(t, dev, readPBs(t, dir, "input"))[0]
	first, err := m.Run(in)
	require.NoError(t, err)
	require.Zero(t, m.planHits)
	short, err := m.Run(in.Narrow(1, 0, 5).Contiguous())
	require.NoError(t, err)
	assert.Equal(t, []int{2, 5, 40}, short[0].Shape())
	require.Zero(t, m.planHits)
	again, err := m.Run(in)
	require.NoError(t, err)
	assert.Positive(t, m.planHits)
	want := readPBs(t, dir, "output")[0]
	assertClose(t, "first run", first[0], want, 1e-5, 1e-4)
	assertClose(t, "run with the shape arithmetic remembered", again[0], want, 1e-5, 1e-4)
}
