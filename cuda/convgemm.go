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
// epilogue is fused into the last step.
func (d *Device) convGEMM(k *device.ConvKernel, ptrs []uint64) (bool, error) {
	if d.direct {
		return false, nil
	}
	p, ok := planConvGEMM(k, d.info.MemoryBytes/4)
	if !ok {
		return false, nil
	}
	scratch := make([]device.Buffer, 0, 2)
	defer func() {
		for _, b := range scratch {
			d.Free(b)
		}
	}()
	alloc := func(elems int64) (device.Buffer, error) {
		b, err := d.Alloc(4 * elems)
		if err != nil {
			return nil, fmt.Errorf("cuda: conv: scratch: %w", err)
		}
		scratch = append(scratch, b)
		return b, nil
	}
	g := k.Geom
	switch k.Mode {
	case device.ConvForward:
		cols, err := alloc(p.colsElems)
		if err != nil {
			return true, err
		}
		if err := d.runCols(im2colModule, im2colEntry, p.colWords(k.A, ptrs[0], addr(cols), p.colsElems)); err != nil {
			return true, err
		}
		return true, d.MatMul(p.forward(k, cols))
	case device.ConvBackwardInput:
		cols, err := alloc(p.colsElems)
		if err != nil {
			return true, err
		}
		if err := d.MatMul(p.inputProduct(k, cols)); err != nil {
			return true, err
		}
		res := k.ResultShape()
		out := k.Outputs[0]
		direct := identityStore(k.Epilogue, k.Outputs)
		dst := out.Buf
		if !direct {
			if dst, err = alloc(int64(device.NumElements(res))); err != nil {
				return true, err
			}
		}
		dstPtr := addr(dst)
		if direct {
			dstPtr += 4 * uint64(out.Offset)
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
		cols, err := alloc(p.colsElems)
		if err != nil {
			return true, err
		}
		if err := d.runCols(im2colModule, im2colEntry, p.colWords(k.B, ptrs[1], addr(cols), p.colsElems)); err != nil {
			return true, err
		}
		sums, err := alloc(int64(g.N) * int64(g.O) * p.depth)
		if err != nil {
			return true, err
		}
		if err := d.MatMul(p.weightProducts(k, cols, sums)); err != nil {
			return true, err
		}
		return true, d.Reduce(p.weightSum(k, sums))
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
