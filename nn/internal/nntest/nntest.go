package nntest

import (
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/device"
	// Every backend, so that ForEachBackend finds whichever are present.
	_ "github.com/shaderflow/shaderflow/tensor/backends"
)

// ForEachBackend runs fn as a subtest on a device of every registered
// backend, skipping (and saying why) those that are unavailable. With
// -short, only the cpu backend and hardware GPUs run: software-emulated GPUs
// are correctness devices too slow for training loops.
func ForEachBackend(t *testing.T, fn func(t *testing.T, dev *tensor.Device)) {
	t.Helper()
	for _, b := range tensor.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			if !b.Available {
				t.Skipf("backend %s unavailable: %s", b.Name, b.Reason)
			}
			dev, err := tensor.Open(b.Name)
			if err != nil {
				t.Skipf("backend %s: %v", b.Name, err)
			}
			defer dev.Close()
			if testing.Short() && dev.Info().Kind == device.KindSoftwareGPU {
				t.Skipf("%s is a software-emulated GPU; skipped with -short", dev.Info().Name)
			}
			fn(t, dev)
		})
	}
}

// CPU opens the cpu backend for the test.
func CPU(t testing.TB) *tensor.Device {
	t.Helper()
	dev, err := tensor.Open("cpu")
	if err != nil {
		t.Fatalf("open cpu: %v", err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

// Rand returns a generator seeded from $SHADERFLOW_SEED or the clock, and
// logs the seed so that a failure can be repeated.
func Rand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SHADERFLOW_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SHADERFLOW_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (repeat with SHADERFLOW_SEED=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, 0x5eed))
}

// Normal returns n values from N(0, 1).
func Normal(r *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(r.NormFloat64())
	}
	return out
}

// FashionMNIST loads Fashion-MNIST or skips the test, saying where the
// files were looked for.
func FashionMNIST(t testing.TB) (train, test *data.Dataset) {
	t.Helper()
	train, test, err := data.LoadFashionMNIST("")
	if errors.Is(err, data.ErrDatasetNotFound) {
		t.Skipf("Fashion-MNIST not installed: %v", err)
	}
	if err != nil {
		t.Fatalf("loading Fashion-MNIST: %v", err)
	}
	return train, test
}

// Subset returns the first n samples of ds (sharing its memory).
func Subset(ds *data.Dataset, n int) *data.Dataset {
	n = min(n, ds.Len())
	ss := ds.SampleSize()
	return &data.Dataset{X: ds.X[:n*ss], Shape: ds.Shape, Y: ds.Y[:n], NumClasses: ds.NumClasses}
}

// Values reads a tensor's values as float32 or fails the test.
func Values(t testing.TB, x *tensor.Tensor) []float32 {
	t.Helper()
	v, err := x.Float32s()
	if err != nil {
		t.Fatalf("reading %v: %v", x, err)
	}
	return v
}
