package nn

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
)

// To moves every parameter and buffer of m to dev in place, as PyTorch's
// module.to(dev): each tensor is rebound with Tensor.MoveTo, so the model and
// anything holding its parameters (nn.Parameters, an optimizer) see them on
// dev, still leaves that require gradients, their accumulated gradients
// moved with them. An optimizer's own state (momentum, moment estimates)
// stays where it was made: build the optimizer after moving the model, or
// move its state with its MoveTo method. Build layers on the device they
// will train on where you can; To is for changing devices afterwards. On
// error the tensors moved so far stay on dev and the rest where they were:
// call To again.
func To(m Module, dev *tensor.Device) error {
	for _, n := range StateDict(m) {
		if err := n.Tensor.MoveTo(dev); err != nil {
			return fmt.Errorf("nn.To %s: %s: %w", dev.Name(), n.Name, err)
		}
	}
	return nil
}
