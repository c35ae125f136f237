package gpu

import (
	"fmt"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// tileDepth is the depth of the slices the tiled kernels stage per loop
// iteration (tile.wgsl's TILE_K).
const tileDepth = 8

// depthSplit is how a tiled product (matmul, conv) runs over its depth: in
// one launch (parts 1), or, when its depth loop would exceed the device's
// loop budget, in parts chunks of chunk depths whose partial sums go to
// scratch (parts copies of the result, one after the other) and a second
// launch, a sum reduction over the parts, that runs the epilogue.
type depthSplit struct {
	parts, chunk int
	scratch      device.Buffer
}

// planDepth returns the split of a product of depth depth and n result
// elements on t.
func planDepth(depth, n int, t Target) depthSplit {
	steps := ceilDiv(depth, tileDepth)
	b := t.loopBudget()
	if n == 0 || steps <= b {
		return depthSplit{parts: 1}
	}
	parts := ceilDiv(steps, b)
	return depthSplit{parts: parts, chunk: ceilDiv(steps, parts) * tileDepth}
}

// scratchBytes is the scratch memory the split needs.
func (s depthSplit) scratchBytes(n int) int64 {
	if s.parts == 1 {
		return 0
	}
	return int64(s.parts) * int64(n) * 4
}

// withScratch checks the scratch buffer a split product was given.
func (s *depthSplit) withScratch(kernel string, n int, scratch device.Buffer) error {
	if s.parts == 1 {
		return nil
	}
	if scratch == nil || scratch.Bytes() < s.scratchBytes(n) {
		return fmt.Errorf("gpu: %s: a depth split in %d parts needs %d bytes of scratch", kernel, s.parts, s.scratchBytes(n))
	}
	s.scratch = scratch
	return nil
}

// epilogue appends the product launch's epilogue block: the kernel's own,
// or, when split, one that stores the partial sums in scratch. It writes
// the chunk size into the header (tile_split).
func (s depthSplit) epilogue(e *encoder, shape []int, inputs []device.View, p device.Program, outputs []device.View) Hook {
	if s.parts == 1 {
		return e.block(hProg0, HookEpilogue, p, shape, inputs, outputs, true)
	}
	e.set(3, e.count(s.chunk))
	n := device.NumElements(shape)
	sv := device.View{Buf: s.scratch, DType: device.Float32, Shape: []int{s.parts * n}, Strides: []int{1}}
	return e.block(hProg0, HookEpilogue, device.Identity(device.Float32), []int{e.countInt(s.parts * n)}, nil, []device.View{sv}, true)
}

// launches returns the product launch and, when split, the reduction that
// adds up its partial sums and runs the kernel's epilogue.
func (s depthSplit) launches(first *Launch, shape []int, inputs []device.View, p device.Program, outputs []device.View, t Target) ([]*Launch, error) {
	if s.parts == 1 {
		return []*Launch{first}, nil
	}
	n := device.NumElements(shape)
	in := device.View{Buf: s.scratch, DType: device.Float32,
		Shape: append(slices.Clone(shape), s.parts), Strides: append(device.ContiguousStrides(shape), n)}
	sum, err := EncodeReduce(&device.ReduceKernel{
		Op: device.ReduceSum, OutShape: shape, RedShape: []int{s.parts},
		Inputs: []device.View{in}, Prologue: device.Identity(device.Float32),
		EpilogueInputs: inputs, Epilogue: p, Outputs: outputs,
	}, t)
	if err != nil {
		return nil, err
	}
	return []*Launch{first, sum}, nil
}

// single returns the one launch of an unsplit product, or the error of a
// product that needs a split (and scratch).
func single(kernel, split string, ls []*Launch, err error) (*Launch, error) {
	if err != nil {
		return nil, err
	}
	if len(ls) != 1 {
		return nil, fmt.Errorf("gpu: %s: the depth is too long for one launch on this device: use %s", kernel, split)
	}
	return ls[0], nil
}
