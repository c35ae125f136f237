package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/shaderflow/shaderflow/cuda"
	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
)

// stepBatch is the training step's batch, the demo's.
const stepBatch = 64

// stepCase names the training step's row; torch_cuda.py's case of the
// same name is PyTorch's step.
const stepCase = "mlp train step 64"

// graphDevice is what the CUDA backend's devices offer for graphs.
type graphDevice interface {
	SetGraphs(on bool) error
	GraphStats() cuda.GraphStats
}

// stepResult is the training step's median time with graphs off and on,
// and what the graphs did.
type stepResult struct {
	Off, On float64 // seconds; On is 0 where the device has no graphs
	Stats   string  // the device's GraphStats after the graphs run
}

// measureTrainStep times one training step of the demo's MLP (upload of a
// batch of 64 random images and labels, forward, cross-entropy, its value
// read back, backward, an SGD step) on d: warm-up, then the median of
// runs, with CUDA graphs off, then on where d is a CUDA device (the same
// steps: after a first plain submission, each segment of the step
// between its upload, its loss readback and the next upload is one graph).
func measureTrainStep(d *tensor.Device, warmup, runs int) (stepResult, error) {
	model := train.MLP(d, tensor.NewGenerator(1))
	opt := optim.NewSGD(nn.Parameters(model), optim.SGDConfig{LR: 0.1})
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, stepBatch*28*28)
	ys := make([]int32, stepBatch)
	step := func() (time.Duration, error) {
		for i := range xs {
			xs[i] = rng.Float32()
		}
		for i := range ys {
			ys[i] = int32(rng.IntN(10))
		}
		start := time.Now()
		err := d.ScopeErr(func() error {
			x := tensor.FromFloat32s(d, xs, stepBatch, 1, 28, 28)
			y := tensor.FromInt32s(d, ys, stepBatch)
			loss := nn.CrossEntropy(model.Forward(x), y)
			if _, err := loss.Item(); err != nil {
				return err
			}
			if err := loss.Backward(); err != nil {
				return err
			}
			defer opt.ZeroGrad()
			return opt.Step()
		})
		if err == nil {
			err = d.Sync()
		}
		return time.Since(start), err
	}
	median := func() (float64, error) {
		for range warmup {
			if _, err := step(); err != nil {
				return 0, err
			}
		}
		times := make([]float64, runs)
		for i := range times {
			el, err := step()
			if err != nil {
				return 0, err
			}
			times[i] = el.Seconds()
		}
		slices.Sort(times)
		return times[len(times)/2], nil
	}
	var r stepResult
	var err error
	if r.Off, err = median(); err != nil {
		return r, err
	}
	g, ok := d.Raw().(graphDevice)
	if !ok {
		return r, nil
	}
	if err := g.SetGraphs(true); err != nil {
		r.Stats = err.Error()
		return r, nil
	}
	defer g.SetGraphs(false)
	if r.On, err = median(); err != nil {
		return r, err
	}
	s := g.GraphStats()
	r.Stats = fmt.Sprintf("%d segments: %d plain, %d graphs built, %d replays, %d nodes updated, %d failures",
		s.Segments, s.Eager, s.Built, s.Replays, s.NodeUpdates, s.Failures)
	if s.Off != nil {
		r.Stats += "; graphs turned off: " + s.Off.Error()
	}
	return r, nil
}
