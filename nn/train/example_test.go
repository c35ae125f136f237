package train_test

import (
	"fmt"

	_ "github.com/shaderflow/shaderflow/cpu" // registers the cpu backend
	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
)

// twoBlobs is a synthetic two-class dataset: points around (-1, -1) are
// class 0, around (1, 1) class 1.
func twoBlobs(n int) *data.Dataset {
	ds := &data.Dataset{Shape: []int{2}, NumClasses: 2}
	for i := range n {
		c := int32(i % 2)
		jitter := float32(i%7)/10 - 0.3
		center := float32(2*c - 1)
		ds.X = append(ds.X, center+jitter, center-jitter)
		ds.Y = append(ds.Y, c)
	}
	return ds
}

// Trainer runs a classifier's epochs; Evaluate measures it.
func Example() {
	dev := tensor.MustOpen("cpu")
	defer dev.Close()

	ds := twoBlobs(256)
	model := nn.NewLinear(dev, 2, 2, nn.WithGenerator(tensor.NewGenerator(1)))
	opt := optim.NewSGD(nn.Parameters(model), optim.SGDConfig{LR: 0.1})
	tr := train.NewTrainer(dev, model, opt)
	loader := data.NewDataLoader(ds, data.LoaderConfig{BatchSize: 32, Shuffle: true, Seed: 1})
	for epoch := range 3 {
		if _, err := tr.Epoch(loader, epoch, nil); err != nil {
			fmt.Println(err)
			return
		}
	}
	acc, _, err := train.Evaluate(dev, model, ds, 64)
	fmt.Println(acc, err)
	// Output:
	// 1 <nil>
}

// StepTensors trains on any loss: here a regression with nn.MSE.
func ExampleTrainer_StepTensors() {
	dev := tensor.MustOpen("cpu")
	defer dev.Close()

	x := tensor.Arange(dev, -1, 1, 0.25).Reshape(-1, 1)
	y := x.MulScalar(3).AddScalar(0.5) // y = 3x + 0.5
	model := nn.NewLinear(dev, 1, 1, nn.WithGenerator(tensor.NewGenerator(1)))
	tr := train.NewTrainer(dev, model, optim.NewAdam(nn.Parameters(model), optim.AdamConfig{LR: 0.1}))
	tr.Loss = nn.MSE
	for range 300 {
		if err := tr.StepTensors(x, y); err != nil {
			fmt.Println(err)
			return
		}
	}
	w, _ := model.Weight.Item()
	b, _ := model.Bias.Item()
	fmt.Printf("w=%.2f b=%.2f\n", w, b)
	// Output:
	// w=3.00 b=0.50
}
