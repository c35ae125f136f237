package gpu

import (
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodePool validates and encodes pooling: one invocation per element of
// Out (see doc.go).
func EncodePool(k *device.PoolKernel, t Target) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	e := newEncoder("pool", t)
	g := k.Geom
	e.putGeometry(g)
	n := k.Out.NumElements()
	e.set(hN, e.count(n))
	hasIdx := k.Op == device.PoolMax && k.Indices.Buf != nil
	for i, v := range []bool{k.Op == device.PoolAvg, k.Backward, k.Adaptive, k.CountIncludePad} {
		e.set(hK+i, b2u(v))
	}
	e.set(hK+4, e.count(g.N))
	e.set(hK+5, e.count(g.C))
	e.set(hK+6, b2u(hasIdx))
	e.set(hK+7, uint32(e.view5(k.X)))
	e.set(hK+8, uint32(e.view5(k.Out)))
	if hasIdx {
		e.set(hK+9, uint32(e.view5(k.Indices)))
	}
	return e.finish(&Launch{Kind: shaders.Pool, Entry: "pool", Workgroups: ceilDiv(n, WorkgroupSize)})
}
