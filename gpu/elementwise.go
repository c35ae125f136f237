package gpu

import (
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeElementwise validates and encodes an elementwise kernel: one
// invocation per element, the program in block 0 (see doc.go).
func EncodeElementwise(k *device.ElementwiseKernel, t Target) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	e := newEncoder("elementwise", t)
	n := device.NumElements(k.Shape)
	e.set(hN, e.count(n))
	h := e.block(hProg0, HookElementwise, k.Program, k.Shape, k.Inputs, k.Outputs, false)
	return e.finish(&Launch{
		Kind:       shaders.Elementwise,
		Entry:      "elementwise",
		Workgroups: ceilDiv(n, WorkgroupSize),
		Hooks:      []Hook{h},
	})
}
