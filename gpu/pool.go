package gpu

import (
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodePool validates and encodes pooling: one invocation per element of
// Out (see doc.go). A pooling whose views span more than one binding is
// refused: EncodePoolSlabs runs it.
func EncodePool(k *device.PoolKernel, t Target) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return encodePool(k, t)
}

// EncodePoolSlabs validates and encodes pooling as one launch, or, when
// its views span more than one binding on t, one launch per slab of its
// images and channels (slabs.go: every view is [N, C, spatial...], and a
// window never leaves its image and channel); a single channel of an image
// whose views span more stays one slab, which the binding plan refuses.
// The launches may run in any order.
func EncodePoolSlabs(k *device.PoolKernel, t Target) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	views := []device.View{k.X, k.Out}
	if k.Indices.Buf != nil {
		views = append(views, k.Indices)
	}
	slabs := splitSpace(t, []int{k.Geom.N, k.Geom.C}, views, nil)
	if slabs == nil {
		l, err := encodePool(k, t)
		if err != nil {
			return nil, err
		}
		return []*Launch{l}, nil
	}
	ls := make([]*Launch, len(slabs))
	for i, s := range slabs {
		sub := *k
		sub.Geom.N, sub.Geom.C = s.shape[0], s.shape[1]
		sub.Geom.O, sub.Geom.Groups = sub.Geom.C, sub.Geom.C
		sub.X, sub.Out = s.view(k.X), s.view(k.Out)
		if k.Indices.Buf != nil {
			sub.Indices = s.view(k.Indices)
		}
		l, err := encodePool(&sub, t)
		if err != nil {
			return nil, err
		}
		ls[i] = l
	}
	return ls, nil
}

// encodePool encodes a validated pooling.
func encodePool(k *device.PoolKernel, t Target) (*Launch, error) {
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
	e.checkLoops("the pooling window", poolLoopTrips(k))
	return e.finish(&Launch{Kind: shaders.Pool, Entry: "pool", Workgroups: ceilDiv(n, WorkgroupSize)})
}

// poolLoopTrips bounds the loop iterations of one pool invocation: the
// nested loops over a window's taps (forward) or over the outputs whose
// windows may hold an input (backward), and for averages the loops that
// count a window's valid taps (per candidate output, backward).
func poolLoopTrips(k *device.PoolKernel) int {
	g := k.Geom
	var taps, cands [spatialDims]int
	for d := range spatialDims {
		taps[d], cands[d] = 1, 1
		if d >= len(g.In) {
			continue
		}
		in, out := g.In[d], g.Out[d]
		switch {
		case k.Adaptive:
			taps[d] = ceilDiv(in, max(out, 1)) + 1
			cands[d] = ceilDiv(out, max(in, 1)) + 1
		case g.Stride[d] >= (g.Kernel[d]-1)*g.Dilation[d]+1: // disjoint windows
			taps[d], cands[d] = g.Kernel[d], 1
		default:
			taps[d], cands[d] = g.Kernel[d], g.Kernel[d]
		}
	}
	nest := func(c [spatialDims]int) int { return c[0] + c[0]*c[1] + c[0]*c[1]*c[2] }
	count := 0
	if k.Op == device.PoolAvg && (k.Adaptive || !k.CountIncludePad) {
		count = taps[0] + taps[1] + taps[2]
	}
	if k.Backward {
		return nest(cands) + cands[0]*cands[1]*cands[2]*count
	}
	return nest(taps) + count
}
