package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// nativeSort is whether sortPositions may use the device's sort kernel;
// tests turn it off to run the network on a device that has one.
var nativeSort = true

// sortAttrs are the parameters of a sort node: the order, and how many
// positions of each line it keeps.
type sortAttrs struct {
	descending bool
	k          int
}

// nativeSortPositions returns the first k (1 to the line's length)
// positions that sort x along its last dimension by the device's sort
// kernel (device.Sorter), or nil when the device has none or the lines are
// longer than such kernels take (the network then sorts them in device
// memory).
func nativeSortPositions(x *Tensor, descending bool, k int) *Tensor {
	d := x.n.dev
	if _, ok := d.raw.(device.Sorter); !ok || !nativeSort || x.shape[x.Dim()-1] > device.MaxSortLine {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	shape := slices.Clone(x.shape)
	shape[len(shape)-1] = k
	n := d.newNode(kindSort, Int32, shape, []src{{n: x.n, v: x.view()}})
	n.attrs = sortAttrs{descending: descending, k: k}
	return whole(n)
}

// runSort launches a sort.
func (d *Device) runSort(n *node) error {
	vx, err := d.realizeSrc(n.srcs[0])
	if err != nil {
		return err
	}
	blk, err := d.alloc(Int32, n.numel())
	if err != nil {
		return err
	}
	a := n.attrs.(sortAttrs)
	k := device.SortKernel{X: vx, Out: device.Contiguous(blk.Buf, Int32, 0, n.shape), Descending: a.descending}
	if a.k < vx.Shape[len(vx.Shape)-1] {
		k.K = a.k
	}
	if err := d.launch("sort", "sort", []string{"sort"}, 1, 1, func() error { return d.raw.(device.Sorter).Sort(&k) }); err != nil {
		d.pool.Free(blk)
		return err
	}
	n.block = blk
	return nil
}
