//go:build cgo && linux

package fakeconf_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/shaderflow/shaderflow/cuda"
	"github.com/shaderflow/shaderflow/cuda/internal/fakecuda"
	"github.com/shaderflow/shaderflow/tensor/conformance"
)

// skipReason is why the double could not be built; empty when it was.
var skipReason string

// TestMain builds the double and points the CUDA backend at it before
// anything loads the backend's libraries (they are loaded once per process),
// with the disk cache of modules in the same temporary directory: the
// devices the suite opens one after another load the kernels the first
// compiled instead of compiling them again.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sf-fakeconf-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		if err := fakecuda.Tools(); err != nil {
			skipReason = err.Error()
			return m.Run()
		}
		l, err := fakecuda.Build(dir, "../testdata", nil, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for k, v := range map[string]string{
			"SHADERFLOW_CUDA_DRIVER": l.Driver,
			"SHADERFLOW_CUDA_NVRTC":  l.NVRTC,
			"SF_FAKE_NVRTC_DIR":      l.Dir,
			"SF_FAKE_NVRTC_CACHE":    l.KernelCache,
			"SHADERFLOW_CUDA_CACHE":  filepath.Join(l.Dir, "modcache"),
		} {
			os.Setenv(k, v)
		}
		return m.Run()
	}()
	os.Exit(code)
}

// EnvFull set to 1 runs the whole suite through the double instead of
// coreGroups (about ten minutes per fusion mode on two busy cores).
const EnvFull = "SHADERFLOW_FAKE_CUDA_FULL"

// coreGroups are the suite's groups that go test ./... runs through the
// double: every kernel kind (elementwise, reduce, matmul, conv, pool,
// gather, scatter, copy), views, dtypes, fusion, errors and attention. The
// groups left out (math functions, sorts, scans, gradients, the new NN
// functionals, memory loops, and widedtypes, whose casts among nine types
// compile hundreds of kernels: over ten minutes here) compose the same
// kernel kinds; each new elementwise op's CUDA code runs through the double
// in cuda's TestElementwiseKernels, and the wide types' in TestWideDTypes.
var coreGroups = map[string]bool{
	"creation": true, "views": true, "indexing": true, "unary": true, "binary": true,
	"compare": true, "int32": true, "bool": true, "narrow": true, "zerostride": true,
	"padwindow": true, "reduce": true, "softmax": true, "matmul": true, "conv": true,
	"pool": true, "norm": true, "attention": true, "edge": true, "errors": true,
	"fusion": true, "scatter": true, "gelu_grad": true, "graphs": true,
}

// TestConformance runs the conformance suite, fusion on and off, on the
// CUDA backend over the double: coreGroups, or every group with EnvFull=1.
func TestConformance(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	if os.Getenv(EnvFull) == "1" {
		conformance.Run(t, "cuda")
		return
	}
	conformance.RunGroups(t, "cuda", func(g string) bool { return coreGroups[g] })
}
