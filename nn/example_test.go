package nn_test

import (
	"fmt"
	"os"
	"path/filepath"

	_ "github.com/shaderflow/shaderflow/cpu" // registers the cpu backend
	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/tensor"
)

// A model is a Module; its state is named as PyTorch's state_dict names it,
// and Save and Load write and read it as safetensors.
func Example() {
	dev := tensor.MustOpen("cpu")
	defer dev.Close()

	gen := nn.WithGenerator(tensor.NewGenerator(1))
	model := nn.NewSequential(
		nn.NewLinear(dev, 4, 8, gen),
		nn.NewReLU(),
		nn.NewLinear(dev, 8, 2, gen),
	)
	for _, p := range model.NamedParameters() {
		fmt.Println(p.Name, p.Tensor.Shape())
	}
	out := model.Forward(tensor.Ones(dev, 3, 4))
	fmt.Println(out.Shape())

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.safetensors")
	if err := nn.Save(path, model); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(nn.Load(path, model))
	// Output:
	// 0.weight [8 4]
	// 0.bias [8]
	// 2.weight [2 8]
	// 2.bias [2]
	// [3 2]
	// <nil>
}

// To moves a model's parameters and buffers to another device in place.
func ExampleTo() {
	cpu, other := tensor.MustOpen("cpu"), tensor.MustOpen("cpu") // any two devices
	defer cpu.Close()
	defer other.Close()

	model := nn.NewLinear(cpu, 3, 1)
	if err := nn.To(model, other); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(model.Weight.Device() == other, model.Weight.RequiresGrad())
	// Output:
	// true true
}
