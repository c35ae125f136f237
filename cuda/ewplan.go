package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// ewDim is one dimension of an elementwise kernel: its size and each
// input's stride (outputs are contiguous).
type ewDim struct {
	size    int
	strides []int
}

// planElementwise turns a validated elementwise kernel into the parameter
// words of its launches (addresses filled in by ptrs, one per input then
// one per output). Dimensions of size one are dropped and neighbours
// contiguous in every input merged; where more than ewMaxRank remain, the
// leading ones are looped over here, one launch per index, each with its
// position base. An empty kernel needs no launch. It fails when the
// parameters do not fit the kernel parameter space.
func planElementwise(k *device.ElementwiseKernel, ptrs []uint64) ([][]int64, error) {
	_, nimm := immSlots(k.Program)
	l := ewLayout{nin: len(k.Inputs), nout: len(k.Outputs), nimm: nimm}
	if l.words()*8 > maxParamBytes {
		return nil, fmt.Errorf("cuda: elementwise: %d inputs, %d outputs and %d constants need %d bytes of kernel parameters, more than %d: %w",
			l.nin, l.nout, nimm, l.words()*8, maxParamBytes, ErrNotImplemented)
	}
	n := device.NumElements(k.Shape)
	if n == 0 {
		return nil, nil
	}
	strides := make([][]int, len(k.Inputs))
	for j, v := range k.Inputs {
		strides[j] = v.Strides
	}
	dims := mergeDims(k.Shape, strides)
	outer, inner, count := splitKernelDims(dims)
	base := make([]int64, l.words())
	base[0], base[1] = int64(count), int64(len(inner))
	for i, d := range inner {
		base[3+i] = int64(d.size)
		for j, s := range d.strides {
			base[l.inStride()+j*ewMaxRank+i] = int64(s)
		}
	}
	for j := range k.Inputs {
		base[l.inPtr()+j] = int64(ptrs[j])
	}
	for j := range k.Outputs {
		base[l.outPtr()+j] = int64(ptrs[l.nin+j])
	}
	slots, _ := immSlots(k.Program)
	for i, in := range k.Program.Code {
		if slots[i] >= 0 {
			base[l.imm()+slots[i]] = immWord(in)
		}
	}
	var out [][]int64
	offs := make([]int, l.nin)
	for j, v := range k.Inputs {
		offs[j] = v.Offset
	}
	splitLeading(outer, count, offs, func(pos int, offs []int) {
		w := append([]int64(nil), base...)
		w[2] = int64(pos)
		for j := range k.Inputs {
			w[l.inOff()+j] = int64(offs[j])
		}
		for j, v := range k.Outputs {
			w[l.outOff()+j] = int64(v.Offset + pos)
		}
		out = append(out, w)
	})
	return out, nil
}

// splitLeading calls emit once per index of the leading dimensions lead,
// with the position base of that index (count positions follow each) and
// the strided views' offsets moved to it from offs.
func splitLeading(lead []ewDim, count int, offs []int, emit func(pos int, offs []int)) {
	var walk func(lead []ewDim, pos int)
	walk = func(lead []ewDim, pos int) {
		if len(lead) == 0 {
			emit(pos, offs)
			return
		}
		step := count
		for _, d := range lead[1:] {
			step *= d.size
		}
		for i := 0; i < lead[0].size; i++ {
			for j := range offs {
				offs[j] += i * lead[0].strides[j]
			}
			walk(lead[1:], pos+i*step)
			for j := range offs {
				offs[j] -= i * lead[0].strides[j]
			}
		}
	}
	walk(lead, 0)
}

// splitKernelDims splits merged dimensions into the leading ones looped on
// the host and the last ewMaxRank that one launch covers, with the launch's
// element count.
func splitKernelDims(dims []ewDim) (outer, inner []ewDim, count int) {
	split := len(dims) - min(len(dims), ewMaxRank)
	outer, inner, count = dims[:split], dims[split:], 1
	for _, d := range inner {
		count *= d.size
	}
	return outer, inner, count
}

// mergeDims returns the dimensions of shape without those of size one,
// with neighbours that address like one dimension in every stride list
// (strides[j][i] is view j's stride along dimension i) merged.
func mergeDims(shape []int, strides [][]int) []ewDim {
	var dims []ewDim
	for i, s := range shape {
		if s == 1 {
			continue
		}
		d := ewDim{size: s, strides: make([]int, len(strides))}
		for j, st := range strides {
			d.strides[j] = st[i]
		}
		if last := len(dims) - 1; last >= 0 && mergeable(dims[last], d) {
			for j := range d.strides {
				dims[last].strides[j] = d.strides[j]
			}
			dims[last].size *= s
			continue
		}
		dims = append(dims, d)
	}
	return dims
}

// mergeable reports whether outer and inner address like one dimension in
// every input.
func mergeable(outer, inner ewDim) bool {
	for j := range inner.strides {
		if outer.strides[j] != inner.strides[j]*inner.size {
			return false
		}
	}
	return true
}
