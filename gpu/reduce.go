package gpu

import (
	"slices"

	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeReduce validates and encodes a reduction: the prologue in block 0,
// the epilogue in block 1 (see doc.go). Long reductions (or few outputs) get
// a workgroup per output, short ones an invocation per output.
func EncodeReduce(k *device.ReduceKernel, t Target) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	e := newEncoder("reduce", t)
	o := device.NumElements(k.OutShape)
	r := device.NumElements(k.RedShape)
	e.set(hN, e.count(o))
	e.set(hK, uint32(k.Op))
	e.set(hK+1, e.count(r))
	e.count(o * r)
	full := slices.Concat(k.OutShape, k.RedShape)
	pro := e.block(hProg0, HookReducePrologue, k.Prologue, full, k.Inputs, nil, false)
	epi := e.block(hProg1, HookReduceEpilogue, k.Epilogue, k.OutShape, k.EpilogueInputs, k.Outputs, true)
	l := &Launch{Kind: shaders.Reduce, Entry: "reduce_wg", Workgroups: o, Hooks: []Hook{pro, epi}}
	if r < WorkgroupSize && o >= 1024 {
		l.Entry, l.Workgroups = "reduce_thread", ceilDiv(o, WorkgroupSize)
	}
	return e.finish(l)
}
