package gpu

import (
	"slices"

	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeMatMul validates and encodes a batched matrix product as one
// launch: one workgroup per 64x64 result tile of a batch, the epilogue in
// block 0. A product whose depth needs a split on t (MatMulScratchBytes > 0)
// or whose views span more than one binding is refused: EncodeMatMulSplit
// runs it.
func EncodeMatMul(k *device.MatMulKernel, t Target) (*Launch, error) {
	ls, err := EncodeMatMulSplit(k, t, nil)
	return single("matmul", "EncodeMatMulSplit", ls, err)
}

// MatMulScratchBytes returns the scratch memory EncodeMatMulSplit needs for
// k on t: 0 when k runs as one launch (or one launch per slab).
func MatMulScratchBytes(k *device.MatMulKernel, t Target) int64 {
	var most int64
	for _, s := range matmulSlabs(k, t) {
		n := device.NumElements(s.k.Batch) * k.M * k.N
		most = max(most, planDepth(k.K, n, t).scratchBytes(n))
	}
	return most
}

// matmulSlab is one slab of a product's batch: the product over it and the
// position of its first result element in the whole product's.
type matmulSlab struct {
	k    *device.MatMulKernel
	base int
}

// matmulSlabs returns k, or, when its views span more than one binding on
// t, its products over slabs of its batch (slabs.go; broadcast batches
// are views of stride 0, whose slabs are the whole operand); a single
// matrix whose views span more stays one slab, which the binding plan
// refuses.
func matmulSlabs(k *device.MatMulKernel, t Target) []matmulSlab {
	views := slices.Concat([]device.View{k.A, k.B}, k.EpilogueInputs, k.Outputs)
	slabs := splitSpace(t, k.Batch, views, nil)
	if slabs == nil {
		return []matmulSlab{{k: k}}
	}
	out := make([]matmulSlab, len(slabs))
	for i, s := range slabs {
		sub := *k
		sub.Batch, sub.A, sub.B = s.shape, s.view(k.A), s.view(k.B)
		sub.EpilogueInputs, sub.Outputs = s.views(k.EpilogueInputs), s.views(k.Outputs)
		out[i] = matmulSlab{k: &sub, base: s.base * k.M * k.N}
	}
	return out
}

// EncodeMatMulSplit validates and encodes a batched matrix product: one
// launch, or, when the depth K is too long for one workgroup's loop on t,
// a launch over chunks of K writing partial sums to scratch (a buffer of at
// least MatMulScratchBytes(k, t) bytes; nil when that is 0) and a reduction
// that adds them up and runs the epilogue; when its views span more than
// one binding on t, it does so for each slab of its batch. The launches
// must run in order.
func EncodeMatMulSplit(k *device.MatMulKernel, t Target, scratch device.Buffer) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	var ls []*Launch
	for _, s := range matmulSlabs(k, t) {
		sl, err := encodeMatMul(s.k, t, scratch, s.base)
		if err != nil {
			return nil, err
		}
		ls = append(ls, sl...)
	}
	return ls, nil
}

// encodeMatMul encodes a validated product whose first result element is
// at position base of the whole product's.
func encodeMatMul(k *device.MatMulKernel, t Target, scratch device.Buffer, base int) ([]*Launch, error) {
	batches := device.NumElements(k.Batch)
	n := batches * k.M * k.N
	s := planDepth(k.K, n, t)
	s.base = base
	if err := s.withScratch("matmul", n, scratch); err != nil {
		return nil, err
	}
	e := newEncoder("matmul", t)
	e.set(hN, e.count(n))
	tn, tm := ceilDiv(k.N, tileEdge), ceilDiv(k.M, tileEdge)
	for i, v := range []int{k.M, k.N, k.K, batches, len(k.Batch), tn, tm} {
		e.set(hK+i, e.count(v))
	}
	epi := s.epilogue(e, k.OutShape(), k.EpilogueInputs, k.Epilogue, k.Outputs)
	e.set(hK+7, uint32(e.here()))
	e.putInts(k.Batch)
	e.set(hK+8, uint32(e.view(k.A, k.A.Strides, false)))
	e.set(hK+9, uint32(e.view(k.B, k.B.Strides, false)))
	first, err := e.finish(&Launch{Kind: shaders.MatMul, Entry: "matmul", Workgroups: e.countInt(s.parts * batches * tm * tn), Hooks: []Hook{epi}})
	if err != nil {
		return nil, err
	}
	return s.launches(first, k.OutShape(), k.EpilogueInputs, k.Epilogue, k.Outputs, t)
}
