package train

import (
	"fmt"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/tensor"
)

// Trainer trains a model one mini-batch at a time. Step and Epoch feed it
// images with Int32 class labels (classification, the nn/data datasets);
// StepTensors takes any input and target tensors, so with another Loss it
// trains regressions (nn.MSE on Float32 targets) or multi-label
// classifiers (nn.BCEWithLogits on 0/1 targets).
type Trainer struct {
	Dev   *tensor.Device
	Model nn.Module
	Opt   optim.Optimizer
	// Loss maps the model's output and the target to a one-element loss;
	// nil means nn.CrossEntropy (logits and Int32 labels).
	Loss func(output, target *tensor.Tensor) *tensor.Tensor
	// Schedule, when not nil, is stepped after every optimizer step (a
	// per-batch learning-rate schedule, as torch's schedulers stepped
	// once per batch).
	Schedule optim.Scheduler

	lossSum *tensor.Tensor // the losses since ResetLoss, summed on the device
	steps   int
}

// NewTrainer returns a Trainer for model with optimizer opt and
// cross-entropy loss. Build it outside any scope.
func NewTrainer(dev *tensor.Device, model nn.Module, opt optim.Optimizer) *Trainer {
	t := &Trainer{Dev: dev, Model: model, Opt: opt}
	t.ResetLoss()
	return t
}

// ResetLoss restarts the running loss that MeanLoss reports.
func (t *Trainer) ResetLoss() {
	if t.lossSum != nil {
		t.lossSum.Release()
	}
	t.lossSum = tensor.Zeros(t.Dev)
	t.steps = 0
}

// Step trains on one batch: x holds shape[0] samples, y their labels. It
// puts the model in training mode, runs the forward pass, adds the loss to the running sum on the device
// (no host synchronization), runs the backward pass and the optimizer step,
// and clears the gradients, all inside a Device.Scope; then it steps
// Schedule, if any. It launches the step's kernels without waiting for them
// (tensor.Launch), so the next step is recorded while they run; a kernel's
// runtime error is returned by a later read (MeanLoss) or Device.Sync.
func (t *Trainer) Step(x []float32, shape []int, y []int32) error {
	return t.Dev.ScopeErr(func() error { return t.step(x, shape, y) })
}

func (t *Trainer) step(x []float32, shape []int, y []int32) error {
	xt, err := tensor.FromBytes(t.Dev, tensor.Float32, float32Bytes(x), shape...)
	if err != nil {
		return fmt.Errorf("train: batch: %w", err)
	}
	yt, err := tensor.FromBytes(t.Dev, tensor.Int32, int32Bytes(y), len(y))
	if err != nil {
		return fmt.Errorf("train: labels: %w", err)
	}
	return t.stepTensors(xt, yt)
}

// StepTensors trains on one batch given as tensors on Dev: the model's input
// x and the target that Loss compares its output with. It does what Step
// does, inside a Device.Scope of its own; x and target are left alone.
func (t *Trainer) StepTensors(x, target *tensor.Tensor) error {
	return t.Dev.ScopeErr(func() error { return t.stepTensors(x, target) })
}

func (t *Trainer) stepTensors(x, target *tensor.Tensor) error {
	t.Model.Train(true)
	lossFn := t.Loss
	if lossFn == nil {
		lossFn = nn.CrossEntropy
	}
	loss := lossFn(t.Model.Forward(x), target)
	if loss.NumElements() != 1 {
		panic(&tensor.UsageError{Op: "train.Trainer", Msg: fmt.Sprintf("Loss returned a tensor of shape %v; it must have one element (reduce it with Mean or Sum)", loss.Shape())})
	}
	t.lossSum.Assign(t.lossSum.Add(loss.Detach()))
	if err := t.lossSum.Launch(); err != nil {
		return fmt.Errorf("train: forward: %w", err)
	}
	t.steps++
	if err := loss.Backward(); err != nil {
		return fmt.Errorf("train: backward: %w", err)
	}
	err := t.Opt.Step()
	t.Opt.ZeroGrad()
	if err == nil && t.Schedule != nil {
		t.Schedule.Step()
	}
	return err
}

// MeanLoss returns the mean loss of the steps since ResetLoss (reading it
// synchronizes with the device).
func (t *Trainer) MeanLoss() (float64, error) {
	if t.steps == 0 {
		return 0, nil
	}
	s, err := t.lossSum.Item()
	return s / float64(t.steps), err
}

// Epoch trains on every batch of epoch number epoch of loader, calling
// progress (when not nil) after each step with the batch index and count.
// It returns the epoch's mean loss.
func (t *Trainer) Epoch(loader *data.DataLoader, epoch int, progress func(i, n int)) (float64, error) {
	t.ResetLoss()
	n := loader.NumBatches()
	for b := range loader.Epoch(epoch) {
		if err := t.Step(b.X, b.Shape, b.Y); err != nil {
			return 0, fmt.Errorf("epoch %d batch %d: %w", epoch, b.Index, err)
		}
		if progress != nil {
			progress(b.Index, n)
		}
	}
	return t.MeanLoss()
}
