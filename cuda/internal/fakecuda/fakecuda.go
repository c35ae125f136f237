package fakecuda

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Libs are the built libraries, in Dir.
type Libs struct {
	Dir    string // holds the libraries and the fake NVRTC's compiled kernels
	Driver string // the fake libcuda.so.1
	NVRTC  string // the fake libnvrtc.so.13
	CuBLAS string // the fake libcublas.so.13
	Log    string // where the fake logs its calls when SF_FAKE_CUDA_LOG names it
	// KernelCache is where the fake NVRTC keeps the kernels it compiled,
	// by content, when SF_FAKE_NVRTC_CACHE names it: one directory for
	// every test process of the machine (the cuda package and its
	// conformance suite compile many of the same kernels), emptied by Build
	// when it outgrows 256 MiB.
	KernelCache string
}

// Tools returns an error when gcc or g++, which Build and the fake NVRTC
// need, is not installed.
func Tools() error {
	for _, tool := range []string{"gcc", "g++"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("gcc and g++ are needed to build the fake CUDA driver: %w", err)
		}
	}
	return nil
}

// Build compiles testdata's (cuda/testdata's) fake driver, fake NVRTC, NVRTC
// builtins and fake cuBLAS into dir, with extra C flags for the driver and
// NVRTC. The backend uses the fake cuBLAS only where a test names it and
// the driver was built with the soname libcuda.so.1
// (-Wl,-soname,libcuda.so.1), which is how the backend recognizes the
// driver cuBLAS would use.
func Build(dir, testdata string, driverFlags, nvrtcFlags []string) (Libs, error) {
	testdata, err := filepath.Abs(testdata)
	if err != nil {
		return Libs{}, err
	}
	l := Libs{
		Dir:    dir,
		Driver: filepath.Join(dir, "libcuda.so.1"),
		NVRTC:  filepath.Join(dir, "libnvrtc.so.13"),
		CuBLAS: filepath.Join(dir, "libcublas.so.13"),
		Log:    filepath.Join(dir, "calls.log"),

		KernelCache: filepath.Join(os.TempDir(), "shaderflow-fake-nvrtc"),
	}
	if err := prepareKernelCache(l.KernelCache); err != nil {
		return l, err
	}
	gcc := func(out, src string, flags ...string) error {
		args := append([]string{"-shared", "-fPIC", "-O0", "-Wall", "-Werror", "-o", out, filepath.Join(testdata, src)}, flags...)
		if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("gcc %s: %w: %s", strings.Join(args, " "), err, b)
		}
		return nil
	}
	prelude := filepath.Join(testdata, "fakeprelude.h")
	if err := gcc(l.Driver, "fakecuda.c", append([]string{"-ldl"}, driverFlags...)...); err != nil {
		return l, err
	}
	if err := gcc(l.NVRTC, "fakenvrtc.c", append([]string{"-ldl", `-DSF_FAKE_PRELUDE="` + prelude + `"`}, nvrtcFlags...)...); err != nil {
		return l, err
	}
	if err := gcc(l.CuBLAS, "fakecublas.c"); err != nil {
		return l, err
	}
	return l, gcc(filepath.Join(dir, "libnvrtc-builtins.so.13.0"), "fakebuiltins.c")
}

// kernelCacheLimit bounds the kernel cache: past it, Build empties it.
const kernelCacheLimit = 256 << 20

// prepareKernelCache creates the kernel cache directory, emptying it first
// when its files outgrew kernelCacheLimit (a process reading or publishing
// at that moment misses and compiles).
func prepareKernelCache(dir string) error {
	entries, _ := os.ReadDir(dir)
	var size int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			size += info.Size()
		}
	}
	if size > kernelCacheLimit {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	return os.MkdirAll(dir, 0o755)
}
