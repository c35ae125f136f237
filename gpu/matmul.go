package gpu

import (
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeMatMul validates and encodes a batched matrix product: one
// workgroup per 64x64 result tile of a batch, the epilogue in block 0.
func EncodeMatMul(k *device.MatMulKernel, t Target) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	e := newEncoder("matmul", t)
	batches := device.NumElements(k.Batch)
	e.set(hN, e.count(batches*k.M*k.N))
	tn, tm := ceilDiv(k.N, tileEdge), ceilDiv(k.M, tileEdge)
	for i, v := range []int{k.M, k.N, k.K, batches, len(k.Batch), tn, tm} {
		e.set(hK+i, e.count(v))
	}
	epi := e.block(hProg0, HookEpilogue, k.Epilogue, k.OutShape(), k.EpilogueInputs, k.Outputs, true)
	e.set(hK+7, uint32(e.here()))
	e.putInts(k.Batch)
	e.set(hK+8, uint32(e.view(k.A, k.A.Strides, false)))
	e.set(hK+9, uint32(e.view(k.B, k.B.Strides, false)))
	return e.finish(&Launch{Kind: shaders.MatMul, Entry: "matmul", Workgroups: e.countInt(batches * tm * tn), Hooks: []Hook{epi}})
}
