package optim

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor"
)

// MoveTo moves the optimizer's state (momentum buffers) to dev in place, for
// use after nn.To has moved the parameters it updates there.
func (o *SGD) MoveTo(dev *tensor.Device) error { return moveState(dev, o.buf) }

// MoveTo moves the optimizer's state (both moment estimates) to dev in
// place, for use after nn.To has moved the parameters it updates there.
func (o *Adam) MoveTo(dev *tensor.Device) error { return moveState(dev, o.m, o.v) }

// moveState rebinds every state tensor onto dev.
func moveState(dev *tensor.Device, state ...[]*tensor.Tensor) error {
	for _, ts := range state {
		for i, t := range ts {
			if err := t.MoveTo(dev); err != nil {
				return fmt.Errorf("optim: moving the state of parameter %d to %s: %w", i, dev.Name(), err)
			}
		}
	}
	return nil
}
