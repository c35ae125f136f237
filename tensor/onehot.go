package tensor

// OneHot is torch.nn.functional.one_hot for Int32 or Int64 class indices t of any
// shape: the result has shape t.Shape() ++ [numClasses] and holds 1 at each
// index's class and 0 elsewhere. It is Int32 (PyTorch returns int64; Cast
// it for other types). numClasses must be given (PyTorch's -1, inferring it
// from the largest index, would need a read of the data). An index outside
// [0, numClasses) is an error when the result is read, as PyTorch's
// "class values must be smaller than num_classes" is, never a row of zeros.
func (t *Tensor) OneHot(numClasses int) *Tensor {
	t.check("OneHot")
	if !isIndexType(t.DType()) {
		usage("OneHot", "needs Int32 or Int64 class indices, got %s", t.DType())
	}
	if numClasses < 1 {
		usage("OneHot", "numClasses %d must be positive", numClasses)
	}
	shape := append(t.Shape(), numClasses)
	idx := t.Unsqueeze(-1)
	ones := FullOf(t.Device(), Float32, 1, idx.shape...)
	return ScatterAdd(shape, -1, idx, ones).Cast(Int32)
}
