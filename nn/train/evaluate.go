package train

import (
	"fmt"
	"unsafe"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/tensor"
)

// Evaluate returns model's accuracy and mean cross-entropy on ds, in
// evaluation mode and without gradients, batch samples at a time. The model
// is left in training mode. It turns gradient recording off on dev while it
// runs (Device.NoGrad), so no other goroutine may train on dev meanwhile.
func Evaluate(dev *tensor.Device, model nn.Module, ds *data.Dataset, batch int) (acc, loss float64, err error) {
	if ds.Len() == 0 {
		return 0, 0, fmt.Errorf("train: Evaluate: empty dataset")
	}
	model.Train(false)
	defer model.Train(true)
	correct, total := tensor.Zeros(dev), tensor.Zeros(dev)
	defer correct.Release()
	defer total.Release()
	loader := data.NewDataLoader(ds, data.LoaderConfig{BatchSize: batch})
	dev.NoGrad(func() {
		for b := range loader.Epoch(0) {
			dev.Scope(func() { err = evalBatch(dev, model, b, correct, total) })
			if err != nil {
				return
			}
		}
	})
	if err != nil {
		return 0, 0, fmt.Errorf("train: Evaluate: %w", err)
	}
	c, err := correct.Item()
	if err != nil {
		return 0, 0, err
	}
	l, err := total.Item()
	n := float64(ds.Len())
	return c / n, l / n, err
}

// evalBatch adds a batch's correct predictions and summed loss to the
// running totals.
func evalBatch(dev *tensor.Device, model nn.Module, b data.Batch, correct, total *tensor.Tensor) error {
	x, err := tensor.FromBytes(dev, tensor.Float32, float32Bytes(b.X), b.Shape...)
	if err != nil {
		return err
	}
	y, err := tensor.FromBytes(dev, tensor.Int32, int32Bytes(b.Y), len(b.Y))
	if err != nil {
		return err
	}
	logits := model.Forward(x)
	if err := logits.Realize(); err != nil {
		return err
	}
	correct.Assign(correct.Add(logits.ArgMax(1).Eq(y).Cast(tensor.Float32).Sum()))
	total.Assign(total.Add(nn.CrossEntropyLoss{Reduction: nn.Sum}.Loss(logits, y)))
	return tensor.Realize(correct, total)
}

// float32Bytes views a float32 slice as its little-endian bytes (the
// machines Shaderflow runs on are little-endian).
func float32Bytes(x []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), 4*len(x))
}

// int32Bytes views an int32 slice as its little-endian bytes.
func int32Bytes(x []int32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), 4*len(x))
}
