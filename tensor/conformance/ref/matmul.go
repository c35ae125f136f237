package ref

import "fmt"

// MatMul is torch.matmul: a dot product for two vectors, a matrix product for
// matrices, a vector promoted to a matrix (and the added dimension removed
// again) for a 1-D operand, and broadcast batch dimensions otherwise.
func MatMul(a, b *Array) *Array {
	if a.Dim() == 0 || b.Dim() == 0 {
		panic(fmt.Sprintf("ref.MatMul: scalar operand, shapes %v and %v", a.shape, b.shape))
	}
	av, bv := a, b
	if a.Dim() == 1 {
		av = a.Unsqueeze(0)
	}
	if b.Dim() == 1 {
		bv = b.Unsqueeze(1)
	}
	m, k := av.shape[av.Dim()-2], av.shape[av.Dim()-1]
	k2, n := bv.shape[bv.Dim()-2], bv.shape[bv.Dim()-1]
	if k != k2 {
		panic(fmt.Sprintf("ref.MatMul: inner sizes differ, shapes %v and %v", a.shape, b.shape))
	}
	batch := BroadcastShapes("MatMul", av.shape[:av.Dim()-2], bv.shape[:bv.Dim()-2])
	av = av.Expand(append(append([]int{}, batch...), m, k)...)
	bv = bv.Expand(append(append([]int{}, batch...), k, n)...)
	out := make([]float64, 0, numElements(batch)*m*n)
	nb := len(batch)
	rowA, colB := make([]float64, m*k), make([]float64, n*k) // A and B transposed, contiguous
	forEachIndex(batch, func(bi []int) {
		aOff, bOff := av.offset, bv.offset
		for d, x := range bi {
			aOff += x * av.strides[d]
			bOff += x * bv.strides[d]
		}
		for i := range m {
			for p := range k {
				rowA[i*k+p] = av.data[aOff+i*av.strides[nb]+p*av.strides[nb+1]]
			}
		}
		for j := range n {
			for p := range k {
				colB[j*k+p] = bv.data[bOff+p*bv.strides[nb]+j*bv.strides[nb+1]]
			}
		}
		for i := range m {
			r := rowA[i*k : (i+1)*k]
			for j := range n {
				c := colB[j*k : (j+1)*k]
				s := 0.0
				for p, x := range r {
					s += x * c[p]
				}
				out = append(out, s)
			}
		}
	})
	shape := append([]int{}, batch...)
	if a.Dim() > 1 {
		shape = append(shape, m)
	}
	if b.Dim() > 1 {
		shape = append(shape, n)
	}
	return New(out, shape...)
}
