package cuda

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// planMatMul turns a validated matrix product into the parameter words of
// its launches (addresses in ptrs: A, B, the epilogue inputs, the
// outputs). Batch dimensions are merged as the elementwise kernel's are
// (size one dropped, neighbours contiguous in A, B and every epilogue
// input merged); more than ewMaxRank are looped over here, one launch per
// index of the leading ones, each with its batch base. A product with no
// output element needs no launch; parameters beyond the kernel parameter
// space are refused.
func planMatMul(k *device.MatMulKernel, ptrs []uint64) ([][]int64, error) {
	l := mmLayoutOf(k)
	if l.words()*8 > maxParamBytes {
		return nil, fmt.Errorf("cuda: matmul: %d epilogue inputs, %d outputs and %d constants need %d bytes of kernel parameters, more than %d: %w",
			l.nep, l.nout, l.nimm, l.words()*8, maxParamBytes, ErrNotImplemented)
	}
	if device.NumElements(k.OutShape()) == 0 {
		return nil, nil
	}
	nb := len(k.Batch)
	views := append([]device.View{k.A, k.B}, k.EpilogueInputs...)
	strides := make([][]int, len(views))
	for j, v := range views {
		strides[j] = v.Strides[:nb]
	}
	outer, inner, count := splitKernelDims(mergeDims(k.Batch, strides))
	tl := mmTilingOf(k)
	tm, tn := (k.M+tl.m-1)/tl.m, (k.N+tl.n-1)/tl.n
	w := make([]int64, l.words())
	w[0], w[1] = int64(count*tm*tn), int64(len(inner))
	for i, d := range inner {
		w[3+i] = int64(d.size)
		w[l.a()+5+i] = int64(d.strides[0])
		w[l.b()+5+i] = int64(d.strides[1])
		for j := range k.EpilogueInputs {
			w[l.epStride()+j*ewMaxRank+i] = int64(d.strides[2+j])
		}
	}
	copy(w[l.dims():], []int64{int64(k.M), int64(k.N), int64(k.K), int64(tm), int64(tn)})
	as, bs := k.A.Strides[nb:], k.B.Strides[nb:]
	copy(w[l.a():], []int64{int64(ptrs[0]), 0, int64(as[0]), int64(as[1]), unitAlong(as[1], as[0], k.M)})
	copy(w[l.b():], []int64{int64(ptrs[1]), 0, int64(bs[0]), int64(bs[1]), unitAlong(bs[1], bs[0], k.K)})
	for j, v := range k.EpilogueInputs {
		w[l.epPtr()+j] = int64(ptrs[2+j])
		w[l.epSM()+j], w[l.epSN()+j] = int64(v.Strides[nb]), int64(v.Strides[nb+1])
	}
	for j := range k.Outputs {
		w[l.outPtr()+j] = int64(ptrs[2+l.nep+j])
	}
	slots, _ := immSlots(k.Epilogue)
	for i, in := range k.Epilogue.Code {
		if slots[i] >= 0 {
			w[l.imm()+slots[i]] = immWord(in)
		}
	}
	offs := make([]int, len(views))
	for j, v := range views {
		offs[j] = v.Offset
	}
	mn := int64(k.M) * int64(k.N)
	var out [][]int64
	splitLeading(outer, count, offs, func(pos int, offs []int) {
		lw := append([]int64(nil), w...)
		lw[2] = int64(pos)
		lw[l.a()+1], lw[l.b()+1] = int64(offs[0]), int64(offs[1])
		for j := range k.EpilogueInputs {
			lw[l.epOff()+j] = int64(offs[2+j])
		}
		for j, v := range k.Outputs {
			lw[l.outOff()+j] = int64(v.Offset) + int64(pos)*mn
		}
		out = append(out, lw)
	})
	return out, nil
}

// unitAlong is 1 when an operand's tile loads should run along its inner
// dimension (stride inner) rather than its outer one (stride outer, size
// outerSize): when inner is the unit stride, or the outer dimension has
// one element, or inner is simply the smaller step. It only decides which
// loads neighbouring threads make, not what is loaded.
func unitAlong(inner, outer, outerSize int) int64 {
	abs := func(x int) int { return max(x, -x) }
	if inner == 1 || outerSize == 1 || (outer != 1 && abs(inner) < abs(outer)) {
		return 1
	}
	return 0
}
