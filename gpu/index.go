package gpu

import (
	"fmt"

	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// StatusTarget is the status slot a gather or scatter launch reports
// out-of-range indices in: words 2*Slot and 2*Slot+1 of Buf.
type StatusTarget struct {
	Buf  device.Buffer
	Slot int
}

// EncodeGather validates and encodes torch.gather: one invocation per
// element of Index.
func EncodeGather(k *device.GatherKernel, t Target, st StatusTarget) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if err := checkDTypes(k); err != nil {
		return nil, err
	}
	return encodeIndexed("gather", shaders.Gather, k.Axis, k.Src, k.Index, k.Out, t, st, describeGather(k))
}

// describeGather renders a gather's out-of-range index error.
func describeGather(k *device.GatherKernel) func(int32) error {
	return func(bad int32) error {
		return fmt.Errorf("gather: index %d out of range [0,%d) along axis %d (Src shape %v, Index shape %v)",
			bad, k.Src.Shape[k.Axis], k.Axis, k.Src.Shape, k.Index.Shape)
	}
}

// EncodeScatter validates and encodes torch.scatter_add_: one invocation
// per element of Index; an out-of-range index adds nothing and is reported.
func EncodeScatter(k *device.ScatterKernel, t Target, st StatusTarget) (*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return encodeIndexed("scatter", shaders.Scatter, k.Axis, k.Dst, k.Index, k.Src, t, st, describeScatter(k))
}

// describeScatter renders a scatter's out-of-range index error.
func describeScatter(k *device.ScatterKernel) func(int32) error {
	return func(bad int32) error {
		return fmt.Errorf("scatter: index %d out of range [0,%d) along axis %d (Dst shape %v, Index shape %v)",
			bad, k.Dst.Shape[k.Axis], k.Axis, k.Dst.Shape, k.Index.Shape)
	}
}

// statusView is the view of a status slot.
func statusView(st StatusTarget) device.View {
	return device.View{Buf: st.Buf, DType: device.Int32, Offset: StatusWords * st.Slot, Shape: []int{StatusWords}, Strides: []int{1}}
}

// encodeIndexed encodes gather (data Src, other Out) or scatter (data Dst,
// other Src): the layout is shared (see doc.go).
func encodeIndexed(kn string, kind shaders.Kind, axis int, data, index, other device.View,
	t Target, st StatusTarget, describe func(int32) error) (*Launch, error) {
	e := newEncoder(kn, t)
	n := index.NumElements()
	e.set(hN, e.count(n))
	e.set(hK, uint32(axis))
	e.set(hK+1, uint32(len(index.Shape)))
	e.set(hK+2, e.count(data.Shape[axis]))
	e.set(hK+3, uint32(e.view(statusView(st), nil, false)))
	e.set(hK+5, uint32(e.here()))
	e.putInts(index.Shape)
	for i, v := range []device.View{data, index, other} {
		e.set(hK+6+i, uint32(e.view(v, v.Strides, false)))
	}
	l := &Launch{Kind: kind, Entry: kn, Workgroups: ceilDiv(n, WorkgroupSize),
		Status: &StatusUse{Slot: st.Slot, Describe: describe}}
	return e.finish(l)
}
