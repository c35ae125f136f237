package conformance

import (
	"fmt"
	"slices"
	"sync"

	"github.com/shaderflow/shaderflow/tensor"
)

// TrainAndEvaluateConcurrently runs steps gradient steps on devs[0] and on
// devs[1], each on its own goroutine, while a third evaluates a model whose
// parameter requires a gradient under devs[2].NoGrad, and checks every
// gradient and every evaluation: grad mode must not leak from one device to
// another. It returns the first failure of each goroutine.
func TrainAndEvaluateConcurrently(devs [3]*tensor.Device, steps int) error {
	errs := make([]error, 3)
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = trainSteps(devs[0], steps) })
	wg.Go(func() { errs[1] = trainSteps(devs[1], steps) })
	wg.Go(func() { errs[2] = evaluateSteps(devs[2], 3*steps) })
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
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
			if g, err = w.Grad().Float32s(); err == nil && !slices.Equal(g, want) {
				err = fmt.Errorf("gradient %v, want %v", g, want)
			}
		})
		if err != nil {
			return fmt.Errorf("training on %s, step %d: %w", dev.Name(), i, err)
		}
	}
	return nil
}

// evaluateSteps runs steps forward passes under dev.NoGrad, checking that
// nothing is recorded and the value.
func evaluateSteps(dev *tensor.Device, steps int) error {
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
			return fmt.Errorf("evaluating on %s, step %d: %w", dev.Name(), i, err)
		}
	}
	return nil
}

// concurrentGradCase trains on the suite's device and a second one of its
// backend while a third evaluates without gradients.
func concurrentGradCase() testCase {
	return testCase{name: "concurrent_training_and_evaluation", run: func(e *env) {
		devs := [3]*tensor.Device{e.dev}
		for i := 1; i < 3; i++ {
			d, err := tensor.Open(e.dev.Name())
			e.noErr(err, "opening a second device")
			defer func() { _ = d.Close() }()
			devs[i] = d
		}
		e.noErr(TrainAndEvaluateConcurrently(devs, 100), "concurrent training")
	}}
}
