package optim_test

import (
	"fmt"

	_ "github.com/shaderflow/shaderflow/cpu" // registers the cpu backend
	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/tensor"
)

// A training step: forward, Backward, Step, ZeroGrad, inside a scope that
// releases the step's tensors.
func Example() {
	dev := tensor.MustOpen("cpu")
	defer dev.Close()

	// Fit y = 2x - 1 with one linear unit.
	x := tensor.FromFloat32s(dev, []float32{0, 1, 2, 3}, 4, 1)
	y := x.MulScalar(2).AddScalar(-1)
	model := nn.NewLinear(dev, 1, 1, nn.WithGenerator(tensor.NewGenerator(1)))
	opt := optim.NewSGD(nn.Parameters(model), optim.SGDConfig{LR: 0.1, Momentum: 0.9})
	for range 200 {
		err := dev.ScopeErr(func() error {
			loss := nn.MSE(model.Forward(x), y)
			if err := loss.Backward(); err != nil {
				return err
			}
			defer opt.ZeroGrad()
			return opt.Step()
		})
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	w, _ := model.Weight.Item()
	b, _ := model.Bias.Item()
	fmt.Printf("w=%.2f b=%.2f\n", w, b)
	// Output:
	// w=2.00 b=-1.00
}
