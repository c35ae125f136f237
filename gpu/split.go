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
// launch, a sum reduction over the parts, that runs the epilogue. A slab
// of a product split over its batch (slabs.go) runs its own split with
// its epilogue at position base; a slab whose results are summed with the
// other slabs' (a backward-weight convolution split over its images)
// always writes partial sums, after offset parts of the earlier slabs.
type depthSplit struct {
	parts, chunk int
	partial      bool // the partial sums go to scratch (parts > 1, or forced)
	summed       bool // a sum over all slabs' parts adds them up (sumParts)
	offset       int  // parts of scratch before this launch's
	base         int  // position base of the result (Hook.Base)
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
	return depthSplit{parts: parts, chunk: ceilDiv(steps, parts) * tileDepth, partial: true}
}

// planPartial returns the split of a slab of a product whose partial sums
// go to scratch at part offset, whatever its depth, for a sum over all
// slabs' parts to add up.
func planPartial(depth, n, offset int, t Target) depthSplit {
	s := planDepth(depth, n, t)
	if !s.partial {
		s = depthSplit{parts: 1, chunk: ceilDiv(depth, tileDepth) * tileDepth, partial: true}
	}
	s.offset, s.summed = offset, true
	return s
}

// scratchBytes is the scratch memory the split needs, the earlier slabs'
// parts included.
func (s depthSplit) scratchBytes(n int) int64 {
	if !s.partial {
		return 0
	}
	return int64(s.offset+s.parts) * int64(n) * 4
}

// withScratch checks the scratch buffer a split product was given.
func (s *depthSplit) withScratch(kernel string, n int, scratch device.Buffer) error {
	if !s.partial {
		return nil
	}
	if scratch == nil || scratch.Bytes() < s.scratchBytes(n) {
		return fmt.Errorf("gpu: %s: a depth split in %d parts needs %d bytes of scratch", kernel, s.offset+s.parts, s.scratchBytes(n))
	}
	s.scratch = scratch
	return nil
}

// epilogue appends the product launch's epilogue block: the kernel's own,
// or, when split, one that stores the partial sums in scratch. It writes
// the chunk size into the header (tile_split).
func (s depthSplit) epilogue(e *encoder, shape []int, inputs []device.View, p device.Program, outputs []device.View) Hook {
	if !s.partial {
		e.base = s.base
		return e.block(hProg0, HookEpilogue, p, shape, inputs, outputs, true)
	}
	e.set(3, e.count(s.chunk))
	n := device.NumElements(shape)
	sv := device.View{Buf: s.scratch, DType: device.Float32, Offset: s.offset * n, Shape: []int{s.parts * n}, Strides: []int{1}}
	return e.block(hProg0, HookEpilogue, device.Identity(device.Float32), []int{e.countInt(s.parts * n)}, nil, []device.View{sv}, true)
}

// launches returns the product launch and, when its partial sums go to
// scratch (and are not left to a sum over slabs), the reduction that adds
// them up and runs the kernel's epilogue.
func (s depthSplit) launches(first *Launch, shape []int, inputs []device.View, p device.Program, outputs []device.View, t Target) ([]*Launch, error) {
	if !s.partial || s.summed {
		return []*Launch{first}, nil
	}
	sum, err := sumParts(s.scratch, s.parts, s.base, shape, inputs, p, outputs, t)
	if err != nil {
		return nil, err
	}
	return []*Launch{first, sum}, nil
}

// sumParts encodes the sum reduction over parts copies of a result of
// shape in scratch (one after the other) that runs the kernel's epilogue,
// its first result at position base of the whole kernel's.
func sumParts(scratch device.Buffer, parts, base int, shape []int, inputs []device.View, p device.Program, outputs []device.View, t Target) (*Launch, error) {
	n := device.NumElements(shape)
	in := device.View{Buf: scratch, DType: device.Float32,
		Shape: append(slices.Clone(shape), parts), Strides: append(device.ContiguousStrides(shape), n)}
	k := &device.ReduceKernel{
		Op: device.ReduceSum, OutShape: shape, RedShape: []int{parts},
		Inputs: []device.View{in}, Prologue: device.Identity(device.Float32),
		EpilogueInputs: inputs, Epilogue: p, Outputs: outputs,
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return encodeReduceOne(k, t, base)
}

// single returns the one launch of an unsplit product, or the error of a
// product that needs a split (over its depth, with scratch, or its batch).
func single(kernel, split string, ls []*Launch, err error) (*Launch, error) {
	if err != nil {
		return nil, err
	}
	if len(ls) != 1 {
		return nil, fmt.Errorf("gpu: %s: the depth is too long for one launch on this device, or the views span more than one binding: use %s", kernel, split)
	}
	return ls[0], nil
}
