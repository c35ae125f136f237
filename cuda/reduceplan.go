package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// planReduce turns a validated reduction into the parameter words of its
// launches (addresses in ptrs: inputs, epilogue inputs, outputs). Output
// and reduced dimensions are merged separately (size one dropped,
// neighbours contiguous in every view merged); more than ewMaxRank output
// dimensions are looped over here with a position base, and more than
// ewMaxRank reduced ones are refused, as are parameters beyond the kernel
// parameter space. Each launch's groups and parts (rdBlocking) pick the
// serial kernel (groups 0) or the block kernel, in one stage or split in
// two. A reduction with no output element needs no launch.
func planReduce(k *device.ReduceKernel, ptrs []uint64) ([][]int64, error) {
	pro, epi, l := rdPrograms(k)
	if l.words()*8 > maxParamBytes {
		return nil, fmt.Errorf("cuda: reduce: %d inputs, %d epilogue inputs, %d outputs and %d constants need %d bytes of kernel parameters, more than %d: %w",
			l.nin, l.nep, l.nout, l.nimm, l.words()*8, maxParamBytes, ErrNotImplemented)
	}
	if device.NumElements(k.OutShape) == 0 {
		return nil, nil
	}
	no := len(k.OutShape)
	var outStrides, redStrides [][]int
	for _, v := range k.Inputs {
		outStrides = append(outStrides, v.Strides[:no])
		redStrides = append(redStrides, v.Strides[no:])
	}
	for _, v := range k.EpilogueInputs {
		outStrides = append(outStrides, v.Strides)
	}
	red := mergeDims(k.RedShape, redStrides)
	if len(red) > ewMaxRank {
		return nil, fmt.Errorf("cuda: reduce: %d reduced dimensions remain after merging, more than %d: %w", len(red), ewMaxRank, ErrNotImplemented)
	}
	dims := mergeDims(k.OutShape, outStrides)
	outer, inner, count := splitKernelDims(dims)
	base := make([]int64, l.words())
	base[0], base[1] = int64(count), int64(len(inner))
	for i, d := range inner {
		base[3+i] = int64(d.size)
		for j := range k.Inputs {
			base[l.inStride()+j*ewMaxRank+i] = int64(d.strides[j])
		}
		for j := range k.EpilogueInputs {
			base[l.epStride()+j*ewMaxRank+i] = int64(d.strides[l.nin+j])
		}
	}
	rn := device.NumElements(k.RedShape)
	base[l.rn()], base[l.rn()+1] = int64(rn), int64(len(red))
	groups, parts := rdBlocking(count, rn, rdAccessOf(inner, red, l.nin))
	base[l.groups()], base[l.parts()], base[l.stage()] = int64(groups), int64(parts), rdWhole
	if parts > 1 {
		base[l.stage()] = rdPart
	}
	for i, d := range red {
		base[l.rn()+2+i] = int64(d.size)
		for j := range k.Inputs {
			base[l.inRStride()+j*ewMaxRank+i] = int64(d.strides[j])
		}
	}
	for j := range k.Inputs {
		base[l.inPtr()+j] = int64(ptrs[j])
	}
	for j := range k.EpilogueInputs {
		base[l.epPtr()+j] = int64(ptrs[l.nin+j])
	}
	for j := range k.Outputs {
		base[l.outPtr()+j] = int64(ptrs[l.nin+l.nep+j])
	}
	for _, prog := range []struct {
		p     device.Program
		slots []int
	}{{k.Prologue, pro}, {k.Epilogue, epi}} {
		for i, in := range prog.p.Code {
			if prog.slots[i] >= 0 {
				base[l.imm()+prog.slots[i]] = immWord(in)
			}
		}
	}
	offs := make([]int, 0, l.nin+l.nep)
	for _, v := range k.Inputs {
		offs = append(offs, v.Offset)
	}
	for _, v := range k.EpilogueInputs {
		offs = append(offs, v.Offset)
	}
	var out [][]int64
	splitLeading(outer, count, offs, func(pos int, offs []int) {
		w := append([]int64(nil), base...)
		w[2] = int64(pos)
		for j := range k.Inputs {
			w[l.inOff()+j] = int64(offs[j])
		}
		for j := range k.EpilogueInputs {
			w[l.epOff()+j] = int64(offs[l.nin+j])
		}
		for j, v := range k.Outputs {
			w[l.outOff()+j] = int64(v.Offset + pos)
		}
		out = append(out, w)
	})
	return out, nil
}
