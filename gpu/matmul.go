package gpu

import (
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeMatMul validates and encodes a batched matrix product as one
// launch: one workgroup per 64x64 result tile of a batch, the epilogue in
// block 0. A product whose depth needs a split on t (MatMulScratchBytes > 0)
// is refused: EncodeMatMulSplit runs it.
func EncodeMatMul(k *device.MatMulKernel, t Target) (*Launch, error) {
	ls, err := EncodeMatMulSplit(k, t, nil)
	return single("matmul", "EncodeMatMulSplit", ls, err)
}

// MatMulScratchBytes returns the scratch memory EncodeMatMulSplit needs for
// k on t: 0 when k runs as one launch.
func MatMulScratchBytes(k *device.MatMulKernel, t Target) int64 {
	n := device.NumElements(k.Batch) * k.M * k.N
	return planDepth(k.K, n, t).scratchBytes(n)
}

// EncodeMatMulSplit validates and encodes a batched matrix product: one
// launch, or, when the depth K is too long for one workgroup's loop on t,
// a launch over chunks of K writing partial sums to scratch (a buffer of at
// least MatMulScratchBytes(k, t) bytes; nil when that is 0) and a reduction
// that adds them up and runs the epilogue. The launches must run in order.
func EncodeMatMulSplit(k *device.MatMulKernel, t Target, scratch device.Buffer) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	batches := device.NumElements(k.Batch)
	n := batches * k.M * k.N
	s := planDepth(k.K, n, t)
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
