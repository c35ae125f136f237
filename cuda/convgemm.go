//go:build cgo && linux

package cuda

import (
	_ "embed"
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// im2colSource is the CUDA C of the patch matrix kernels (sf_im2col,
// sf_col2im).
//
//go:embed kernels/im2col.cu
var im2colSource string

// The patch matrix kernels' modules, one an entry point.
var (
	im2colModule = entrySource(im2colEntry, func() string { return im2colSource })
	col2imModule = entrySource(col2imEntry, func() string { return im2colSource })
)

// convGEMM runs an eligible convolution (see planConvGEMM) as matrix
// products over a patch matrix, and reports whether it did: the forward
// convolution as W·im2col(X) per image, the input gradient as
// col2im(Wᵀ·dY), the weight gradient as the sum over images of
// dY·im2col(X)ᵀ. ptrs are the addresses of A and B. The products go
// through MatMul, so cuBLAS or the generated kernel computes them and the
// epilogue is fused into the last step. It does nothing (false) where the
// scratch cannot be allocated.
func (d *Device) convGEMM(k *device.ConvKernel, ptrs []uint64) (bool, error) {
	if d.direct {
		return false, nil
	}
	p, ok := planConvGEMM(k, d.info.MemoryBytes/4)
	if !ok {
		return false, nil
	}
	g := k.Geom
	res := k.ResultShape()
	direct := k.Mode == device.ConvBackwardInput && identityStore(k.Epilogue, k.Outputs)
	sizes := []int64{p.colsElems}
	switch {
	case k.Mode == device.ConvBackwardInput && !direct:
		sizes = append(sizes, int64(device.NumElements(res)))
	case k.Mode == device.ConvBackwardWeight:
		sizes = append(sizes, int64(g.N)*int64(g.O)*p.depth)
	}
	// Scratch the device cannot give leaves the convolution to the direct
	// kernel, which needs none.
	scratch := make([]device.Buffer, 0, len(sizes))
	defer func() {
		for _, b := range scratch {
			d.Free(b)
		}
	}()
	for _, n := range sizes {
		b, err := d.Alloc(4 * n)
		if err != nil {
			return false, nil
		}
		scratch = append(scratch, b)
	}
	cols := scratch[0]
	switch k.Mode {
	case device.ConvForward:
		if err := d.runCols(im2colModule, im2colEntry, p.colWords(k.A, ptrs[0], addr(cols), p.colsElems)); err != nil {
			return true, err
		}
		return true, d.MatMul(p.forward(k, cols))
	case device.ConvBackwardInput:
		if err := d.MatMul(p.inputProduct(k, cols)); err != nil {
			return true, err
		}
		out := k.Outputs[0]
		dst, dstPtr := out.Buf, addr(out.Buf)+4*uint64(out.Offset)
		if !direct {
			dst, dstPtr = scratch[1], addr(scratch[1])
		}
		n := int64(device.NumElements(res))
		if err := d.runCols(col2imModule, col2imEntry, p.colWords(device.Contiguous(dst, device.Float32, 0, res), dstPtr, addr(cols), n)); err != nil {
			return true, err
		}
		if direct {
			return true, nil
		}
		return true, d.Elementwise(&device.ElementwiseKernel{Shape: res, Program: k.Epilogue, Outputs: k.Outputs,
			Inputs: append([]device.View{device.Contiguous(dst, device.Float32, 0, res)}, k.EpilogueInputs...)})
	default:
		if err := d.runCols(im2colModule, im2colEntry, p.colWords(k.B, ptrs[1], addr(cols), p.colsElems)); err != nil {
			return true, err
		}
		if err := d.MatMul(p.weightProducts(k, cols, scratch[1])); err != nil {
			return true, err
		}
		return true, d.Reduce(p.weightSum(k, scratch[1]))
	}
}

// addr returns a buffer of this backend's device address.
func addr(b device.Buffer) uint64 { return uint64(b.(*buffer).ptr) }

// runCols launches entry of the patch matrix module with the words w.
func (d *Device) runCols(f *fixedSource, entry string, w []int64) error {
	if w[0] == 0 {
		return nil
	}
	m, err := d.fixedKernel(f, "im2col.cu", entry)
	if err != nil {
		return err
	}
	if err := d.launchWords(m, w); err != nil {
		return fmt.Errorf("cuda: conv: %s: %w", entry, err)
	}
	return nil
}
