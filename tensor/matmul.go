package tensor

import "github.com/shaderflow/shaderflow/tensor/device"

// matmulAttrs are the parameters of a matmul node.
type matmulAttrs struct {
	batch   []int
	m, n, k int
}

// MatMul is torch.matmul: the matrix product over the last two dimensions
// with NumPy-broadcast batch dimensions; a 1-D operand is treated as a row
// (left) or column (right) vector and that dimension is removed again.
// Float32, Float16 and BFloat16 products accumulate in Float32; a Float64
// operand makes the product Float64, accumulated in Float64 (as a Sum of
// products, on backends with Float64). Integer and Bool products are refused
// with a UsageError: cast them to a float type first.
func (t *Tensor) MatMul(o *Tensor) *Tensor {
	t.check("MatMul")
	o.check("MatMul")
	sameDevice("MatMul", t.n.dev, o)
	if dt := promote(t.DType(), o.DType()); !dt.IsFloat() {
		usage("MatMul", "%s @ %s: integer matrix products are not supported (a Float32 product would round sums past 2^24); cast the operands to Float32 or Float64", t.DType(), o.DType())
	}
	if t.Dim() == 0 || o.Dim() == 0 {
		usage("MatMul", "both operands need at least one dimension, got %v and %v", t.shape, o.shape)
	}
	a, b := t, o
	if a.Dim() == 1 {
		a = a.Unsqueeze(0)
	}
	if b.Dim() == 1 {
		b = b.Unsqueeze(1)
	}
	m, k := a.shape[a.Dim()-2], a.shape[a.Dim()-1]
	k2, n := b.shape[b.Dim()-2], b.shape[b.Dim()-1]
	if k != k2 {
		usage("MatMul", "inner dimensions differ: %v @ %v", t.shape, o.shape)
	}
	batch := broadcastShapes("MatMul", a.shape[:a.Dim()-2], b.shape[:b.Dim()-2])
	out := foldedProduct(a, b, batch, m, n, k)
	if out == nil {
		out = mm(a, b, batch, m, n, k)
	}
	if dt := floatType(promote(t.DType(), o.DType())); dt != Float32 {
		out = out.Cast(dt) // computed in float32, rounded once (fuses into the epilogue)
	}
	switch {
	case t.Dim() == 1 && o.Dim() == 1:
		out = out.Reshape()
	case t.Dim() == 1:
		out = out.Squeeze(out.Dim() - 2)
	case o.Dim() == 1:
		out = out.Squeeze(out.Dim() - 1)
	}
	return out
}

// foldedProduct returns a @ b as one product over the rows of a's whole
// batch when b is one matrix that the product broadcasts over that batch (a
// layer's weight applied to [batch, length, features]) and a's rows are
// evenly spaced in memory, so that the batch's products share b's packing
// and per-product costs; nil otherwise.
func foldedProduct(a, b *Tensor, batch []int, m, n, k int) *Tensor {
	if a.Dim() < 3 || !broadcastMatrix(a, b) {
		return nil
	}
	rows := a.NumElements() / k
	if _, ok := reshapeStrides(a.shape, a.strides, []int{rows, k}); !ok {
		return nil
	}
	out := mm(a.Reshape(rows, k), b.Reshape(k, n), nil, rows, n, k)
	return out.Reshape(append(append([]int{}, batch...), m, n)...)
}

// mm records the batched product of a (…, m, k) and b (…, k, n).
func mm(a, b *Tensor, batch []int, m, n, k int) *Tensor {
	if a.n.dtype == Float64 || b.n.dtype == Float64 {
		return mm64(a.Cast(Float64), b.Cast(Float64))
	}
	a, b = a.asFloat32(), b.asFloat32()
	d := a.n.dev
	shapeA := append(append([]int{}, batch...), m, k)
	shapeB := append(append([]int{}, batch...), k, n)
	out := append(append([]int{}, batch...), m, n)
	checkExtent("MatMul", out)
	d.mu.Lock()
	nd := d.newNode(kindMatMul, Float32, out, []src{
		{n: a.n, v: broadcastView(a.view(), shapeA)},
		{n: b.n, v: broadcastView(b.view(), shapeB)},
	})
	nd.attrs = matmulAttrs{batch: batch, m: m, n: n, k: k}
	res := whole(nd)
	d.mu.Unlock()
	return recordGrad(opMatMul, res, []*Tensor{a, b}, nil)
}

// mm64 is the Float64 product of a (…, m, k) and b (…, k, n): the sum over
// k of their broadcast products, one reduction whose prologue multiplies, so
// that it accumulates in Float64 (the MatMul kernel computes in Float32).
func mm64(a, b *Tensor) *Tensor {
	p := a.Unsqueeze(a.Dim()).Mul(b.Unsqueeze(b.Dim() - 2)) // (…, m, k, n)
	return p.Sum(p.Dim() - 2)
}

// asFloat32 returns t converted to Float32 when it is not already.
func (t *Tensor) asFloat32() *Tensor {
	if t.n.dtype == Float32 {
		return t
	}
	return t.Cast(Float32)
}

// runMatMul launches a matmul with ep as its epilogue (nil for none).
func (d *Device) runMatMul(n *node, ep *epilogue) error {
	a := n.attrs.(matmulAttrs)
	p, err := d.prepareProduct(n, ep)
	if err != nil {
		return err
	}
	k := device.MatMulKernel{
		Batch: a.batch, M: a.m, N: a.n, K: a.k, A: p.a, B: p.b,
		EpilogueInputs: p.ep.inputs, Epilogue: p.ep.prog, Outputs: []device.View{p.out},
	}
	err = d.launch("matmul", "matmul", kernelOps("matmul", p.ep.ops), 2+len(p.ep.inputs), 1, func() error { return d.raw.MatMul(&k) })
	return d.finishEpilogue(p.ep, p.blk, err)
}
