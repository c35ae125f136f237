package gpu

import (
	"slices"

	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeElementwise validates and encodes an elementwise kernel: one
// invocation per element, the program in block 0 (see doc.go). A kernel
// whose views span more than one binding is refused: EncodeElementwiseSlabs
// runs it.
func EncodeElementwise(k *device.ElementwiseKernel, t Target) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if err := checkDTypes(k); err != nil {
		return nil, err
	}
	return encodeElementwise(k, t, 0)
}

// EncodeElementwiseSlabs validates and encodes an elementwise kernel as one
// launch, or, when its views span more than one binding on t, one launch
// per slab of its shape (slabs.go). The launches may run in any order.
func EncodeElementwiseSlabs(k *device.ElementwiseKernel, t Target) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if err := checkDTypes(k); err != nil {
		return nil, err
	}
	slabs := splitSpace(t, k.Shape, slices.Concat(k.Inputs, k.Outputs), nil)
	if slabs == nil {
		l, err := encodeElementwise(k, t, 0)
		if err != nil {
			return nil, err
		}
		return []*Launch{l}, nil
	}
	ls := make([]*Launch, len(slabs))
	for i, s := range slabs {
		sub := &device.ElementwiseKernel{Shape: s.shape, Inputs: s.views(k.Inputs), Program: k.Program, Outputs: s.views(k.Outputs)}
		l, err := encodeElementwise(sub, t, s.base)
		if err != nil {
			return nil, err
		}
		ls[i] = l
	}
	return ls, nil
}

// encodeElementwise encodes a validated kernel whose first element is at
// position base of the whole kernel's space.
func encodeElementwise(k *device.ElementwiseKernel, t Target, base int) (*Launch, error) {
	e := newEncoder("elementwise", t)
	n := device.NumElements(k.Shape)
	e.set(hN, e.count(n))
	e.base = base
	h := e.block(hProg0, HookElementwise, k.Program, k.Shape, k.Inputs, k.Outputs, false)
	return e.finish(&Launch{
		Kind:       shaders.Elementwise,
		Entry:      "elementwise",
		Workgroups: ceilDiv(n, WorkgroupSize),
		Hooks:      []Hook{h},
	})
}
