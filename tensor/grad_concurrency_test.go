package tensor_test

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// concurrencyBackends are the backends the concurrent-training test runs on:
// the CPU always, and the GPU backends that SHADERFLOW_REQUIRE_BACKENDS names
// (lavapipe runs them, slowly).
func concurrencyBackends() []string {
	out := []string{"cpu"}
	for _, b := range strings.Split(os.Getenv("SHADERFLOW_REQUIRE_BACKENDS"), ",") {
		if b = strings.TrimSpace(b); b != "" && b != "cpu" {
			out = append(out, b)
		}
	}
	return out
}

// trainSteps runs steps gradient steps of loss = sum(w·w·x) on dev, checking
// every gradient (2·w·x, exact in float32 for these small integers).
func trainSteps(dev *tensor.Device, steps int) error {
	w := tensor.FromFloat32s(dev, []float32{1, 2, 3}, 3).SetRequiresGrad(true)
	x := tensor.FromFloat32s(dev, []float32{2, 1, -1}, 3)
	want := []float32{4, 4, -6}
	for i := range steps {
		var err error
		dev.Scope(func() {
			w.ZeroGrad()
			if err = w.Mul(w).Mul(x).Sum().Backward(); err != nil {
				return
			}
			var g []float32
			if g, err = w.Grad().Float32s(); err == nil && fmt.Sprint(g) != fmt.Sprint(want) {
				err = fmt.Errorf("gradient %v, want %v", g, want)
			}
		})
		if err != nil {
			return fmt.Errorf("%s step %d: %w", dev.Name(), i, err)
		}
	}
	return nil
}

// evaluate runs steps forward passes of a model whose parameter requires a
// gradient, under no-grad mode, checking that nothing is recorded.
func evaluate(dev *tensor.Device, steps int) error {
	w := tensor.FromFloat32s(dev, []float32{1, 2, 3}, 3).SetRequiresGrad(true)
	for i := range steps {
		var err error
		dev.Scope(func() {
			dev.NoGrad(func() {
				y := w.Mul(w).Sum()
				if y.RequiresGrad() {
					err = fmt.Errorf("a result under NoGrad requires grad")
					return
				}
				var v float64
				if v, err = y.Item(); err == nil && v != 14 {
					err = fmt.Errorf("evaluated %g, want 14", v)
				}
			})
		})
		if err != nil {
			return fmt.Errorf("evaluation step %d: %w", i, err)
		}
	}
	return nil
}

// TestConcurrentTrainingAndEvaluation trains on two devices while a third
// goroutine evaluates without gradients on a third: grad mode must not leak
// from one device (or goroutine) to another.
func TestConcurrentTrainingAndEvaluation(t *testing.T) {
	for _, backend := range concurrencyBackends() {
		t.Run(backend, func(t *testing.T) {
			steps := 1500
			if backend != "cpu" {
				steps = 150
			}
			var devs [3]*tensor.Device
			for i := range devs {
				d, err := tensor.Open(backend)
				require.NoError(t, err)
				t.Cleanup(func() { _ = d.Close() })
				devs[i] = d
			}
			require.NotSame(t, devs[0], devs[1], "tensor.Open must return independent devices")
			errs := make([]error, 3)
			var wg sync.WaitGroup
			wg.Go(func() { errs[0] = trainSteps(devs[0], steps) })
			wg.Go(func() { errs[1] = trainSteps(devs[1], steps) })
			wg.Go(func() { errs[2] = evaluate(devs[2], 3*steps) })
			wg.Wait()
			for _, err := range errs {
				require.NoError(t, err)
			}
		})
	}
}
