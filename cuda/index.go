//go:build cgo && linux

package cuda

import (
	_ "embed"
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// indexSource is the CUDA C of the gather and scatter kernels.
//
//go:embed kernels/index.cu
var indexSource string

// indexModules are the modules of index.cu's entry points.
var indexModules = map[string]*fixedSource{
	gatherEntry:  entrySource(gatherEntry, func() string { return indexSource }),
	scatterEntry: entrySource(scatterEntry, func() string { return indexSource }),
}

// runIndexed runs entry of kernels/index.cu over a validated gather (views
// Src, Index, Out) or scatter (Dst, Index, Src), whose out-of-range indices
// c describes, after checking that every buffer is a live buffer of this
// device. An out-of-range index is reported by the next Sync or Read.
func (d *Device) runIndexed(entry string, c indexCall, views [3]device.View) error {
	var ptrs [3]uint64
	for j, v := range views {
		b, err := d.own(v.Buf, fmt.Sprintf("%s: view %d", c.kernel, j))
		if err != nil {
			return err
		}
		ptrs[j] = uint64(b.ptr)
	}
	launches := planIndexed(c.axis, views, ptrs, views[0].DType.Size())
	if len(launches) == 0 {
		return nil
	}
	m, err := d.fixedKernel(indexModules[entry], "index.cu", entry)
	if err != nil {
		return err
	}
	c.dataShape = append([]int(nil), c.dataShape...)
	c.shape = append([]int(nil), c.shape...)
	tag, status, err := d.indexTag(c)
	if err != nil {
		return fmt.Errorf("cuda: %s: %w", c.kernel, err)
	}
	for _, w := range launches {
		w[idxTag], w[idxStatus] = tag, int64(status)
		if err := d.launchWords(m, w); err != nil {
			return fmt.Errorf("cuda: %s: %w", c.kernel, err)
		}
	}
	return nil
}
