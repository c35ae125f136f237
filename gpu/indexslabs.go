package gpu

import (
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeGatherSlabs validates and encodes torch.gather as one launch, or,
// when its views span more than one binding on t, one launch per slab of
// the index's leading dimensions (indexedSlabs). The launches may run in
// any order.
func EncodeGatherSlabs(k *device.GatherKernel, t Target, st StatusTarget) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if err := checkDTypes(k); err != nil {
		return nil, err
	}
	return indexedSlabs("gather", shaders.Gather, k.Axis, k.Src, k.Index, k.Out, t, st, describeGather(k))
}

// EncodeScatterSlabs validates and encodes torch.scatter_add_ as one
// launch, or, when its views span more than one binding on t, one launch
// per slab of the index's leading dimensions (indexedSlabs). The launches
// may run in any order.
func EncodeScatterSlabs(k *device.ScatterKernel, t Target, st StatusTarget) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return indexedSlabs("scatter", shaders.Scatter, k.Axis, k.Dst, k.Index, k.Src, t, st, describeScatter(k))
}

// indexedSlabs encodes a gather or scatter (encodeIndexed's operands) in
// slabs (slabs.go) of the index's dimensions before the axis, which the
// data shares (an index there picks the same position in the data), or,
// for axis 0, of the index's first dimension with the data bound whole
// (any index may pick any of its rows: a data view over one binding, such
// as a scatter-add into a larger output, is refused). All slabs report in
// the one status slot; only the first carries the StatusUse, so that the
// backend checks the slot once.
func indexedSlabs(kn string, kind shaders.Kind, axis int, data, index, other device.View,
	t Target, st StatusTarget, describe func(int32) error) ([]*Launch, error) {
	views, fixed := []device.View{index, other}, []device.View{statusView(st)}
	lead := axis
	if axis == 0 {
		lead, fixed = 1, append(fixed, data)
	} else {
		views = append(views, data)
	}
	slabs := splitSpace(t, index.Shape[:lead], views, fixed)
	if slabs == nil {
		l, err := encodeIndexed(kn, kind, axis, data, index, other, t, st, describe)
		if err != nil {
			return nil, err
		}
		return []*Launch{l}, nil
	}
	ls := make([]*Launch, len(slabs))
	for i, s := range slabs {
		d := data
		if axis > 0 {
			d = s.view(data)
		}
		l, err := encodeIndexed(kn, kind, axis, d, s.view(index), s.view(other), t, st, describe)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			l.Status = nil
		}
		ls[i] = l
	}
	return ls, nil
}
