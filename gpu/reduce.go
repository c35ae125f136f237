package gpu

import (
	"fmt"
	"slices"

	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeReduce validates and encodes a reduction as one launch: the
// prologue in block 0, the epilogue in block 1 (see doc.go). Long
// reductions (or few outputs) get a workgroup per output, short ones an
// invocation per output. A reduction too long for one workgroup's loop on t
// is refused: EncodeReduceSplit runs any reduction, and backends that can
// provide scratch memory should prefer it, which also spreads long
// reductions with few outputs over many workgroups.
func EncodeReduce(k *device.ReduceKernel, t Target) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if err := checkDTypes(k); err != nil {
		return nil, err
	}
	return encodeReduceOne(k, t, 0)
}

// encodeReduceOne encodes a validated reduction as one launch; base is the
// position of its first output in the whole kernel's outputs.
func encodeReduceOne(k *device.ReduceKernel, t Target, base int) (*Launch, error) {
	e, l := encodeReduce(k, t, base)
	r := device.NumElements(k.RedShape)
	if r < WorkgroupSize && r <= t.loopBudget() && l.Workgroups >= 1024 {
		l.Entry, l.Workgroups = "reduce_thread", ceilDiv(l.Workgroups, WorkgroupSize)
		e.checkLoops("reduce_thread", r)
	} else {
		e.checkLoops("reduce_wg (EncodeReduceSplit splits it)", ceilDiv(r, WorkgroupSize))
	}
	return e.finish(l)
}

// encodeReduce encodes what every reduction launch shares; base is the
// position of its first output in the whole kernel's outputs.
func encodeReduce(k *device.ReduceKernel, t Target, base int) (*encoder, *Launch) {
	e := newEncoder("reduce", t)
	o := device.NumElements(k.OutShape)
	r := device.NumElements(k.RedShape)
	e.set(hN, e.count(o))
	e.set(hK, uint32(k.Op))
	e.set(hK+1, e.count(r))
	e.count(o * r)
	full := slices.Concat(k.OutShape, k.RedShape)
	e.base = base * r
	pro := e.block(hProg0, HookReducePrologue, k.Prologue, full, k.Inputs, nil, false)
	e.base = base
	epi := e.block(hProg1, HookReduceEpilogue, k.Epilogue, k.OutShape, k.EpilogueInputs, k.Outputs, true)
	return e, &Launch{Kind: shaders.Reduce, Entry: "reduce_wg", Workgroups: o, Hooks: []Hook{pro, epi}}
}

// Split reductions: at least splitMinValues values per output and at most
// splitMaxOutputs outputs; chunks of at least splitChunk values, at most
// splitMaxParts partials per output.
const (
	splitMinValues  = 1 << 16
	splitMaxOutputs = 64
	splitChunk      = 1 << 14
	splitMaxParts   = 256
)

// reduceParts returns how many partials per output a split reduction
// uses on t, or 0 when the kernel is not split: long reductions with few
// outputs are split for parallelism, and any reduction whose workgroup loop
// would exceed t's loop budget is split into chunks within it.
func reduceParts(k *device.ReduceKernel, t Target) int {
	o, r := device.NumElements(k.OutShape), device.NumElements(k.RedShape)
	if o == 0 {
		return 0
	}
	need := 0 // the fewest partials that keep each chunk's loop in budget
	if b := t.loopBudget(); ceilDiv(r, WorkgroupSize) > b {
		need = ceilDiv(r, WorkgroupSize*b)
	}
	if r < splitMinValues || o > splitMaxOutputs {
		return need
	}
	return max(min(ceilDiv(r, splitChunk), splitMaxParts), need)
}

// ReduceScratchBytes returns the scratch memory EncodeReduceSplit needs for
// k on t: 0 when k runs as one launch (or slabs of one launch each).
func ReduceScratchBytes(k *device.ReduceKernel, t Target) int64 {
	var most int64
	for _, s := range reduceSlabs(k, t) {
		most = max(most, int64(device.NumElements(s.k.OutShape))*int64(reduceParts(s.k, t))*8)
	}
	return most
}

// reduceSlab is one slab of a reduction's outputs: the reduction over it
// and the position of its first output.
type reduceSlab struct {
	k    *device.ReduceKernel
	base int
}

// reduceSlabs returns k, or, when its views span more than one binding on
// t, its reductions over slabs of its outputs (slabs.go); an output whose
// reduced values alone span more stays one slab, which the binding plan
// refuses.
func reduceSlabs(k *device.ReduceKernel, t Target) []reduceSlab {
	slabs := splitSpace(t, k.OutShape, slices.Concat(k.Inputs, k.EpilogueInputs, k.Outputs), nil)
	if slabs == nil {
		return []reduceSlab{{k: k}}
	}
	out := make([]reduceSlab, len(slabs))
	for i, s := range slabs {
		sub := *k
		sub.OutShape, sub.Inputs, sub.EpilogueInputs, sub.Outputs = s.shape, s.views(k.Inputs), s.views(k.EpilogueInputs), s.views(k.Outputs)
		out[i] = reduceSlab{k: &sub, base: s.base}
	}
	return out
}

// EncodeReduceSplit validates and encodes a reduction as one launch, or,
// for a long reduction with few outputs, as two (reduce_partial, then
// reduce_final) that pass partial results through scratch, a buffer of at
// least ReduceScratchBytes(k) bytes (nil when that is 0); when its views
// span more than one binding on t, it does so for each slab of its
// outputs. The launches must run in order; the scratch buffer is free once
// they are done.
func EncodeReduceSplit(k *device.ReduceKernel, t Target, scratch device.Buffer) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if err := checkDTypes(k); err != nil {
		return nil, err
	}
	var ls []*Launch
	for _, s := range reduceSlabs(k, t) {
		sl, err := encodeReduceSplit(s.k, t, scratch, s.base)
		if err != nil {
			return nil, err
		}
		ls = append(ls, sl...)
	}
	return ls, nil
}

// encodeReduceSplit encodes a validated reduction whose first output is at
// position base of the whole kernel's outputs.
func encodeReduceSplit(k *device.ReduceKernel, t Target, scratch device.Buffer, base int) ([]*Launch, error) {
	parts := reduceParts(k, t)
	if parts == 0 {
		l, err := encodeReduceOne(k, t, base)
		if err != nil {
			return nil, err
		}
		return []*Launch{l}, nil
	}
	if scratch == nil || scratch.Bytes() < ReduceScratchBytes(k, t) {
		return nil, fmt.Errorf("gpu: reduce: needs %d bytes of scratch", ReduceScratchBytes(k, t))
	}
	o, r := device.NumElements(k.OutShape), device.NumElements(k.RedShape)
	e, l := encodeReduce(k, t, base)
	sv := device.View{Buf: scratch, DType: device.Int32, Shape: []int{2 * o * parts}, Strides: []int{1}}
	e.set(hK+2, uint32(e.view(sv, nil, false)))
	e.set(hK+3, uint32(parts))
	chunk := ceilDiv(r, parts)
	e.set(hK+4, e.count(chunk))
	e.checkLoops("reduce_partial", ceilDiv(chunk, WorkgroupSize))
	e.checkLoops("reduce_final", ceilDiv(parts, WorkgroupSize))
	first, err := e.finish(l)
	if err != nil {
		return nil, err
	}
	second := *first
	first.Entry, first.Workgroups = "reduce_partial", o*parts
	second.Entry = "reduce_final"
	return []*Launch{first, &second}, nil
}
