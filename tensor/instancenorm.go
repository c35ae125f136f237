package tensor

// InstanceNorm is torch.nn.functional.instance_norm without running
// statistics (use_input_stats=True): it normalizes each channel of each
// sample of [N, C, ...] over its spatial positions to zero mean and unit
// (biased) variance, then applies the per-channel weight and bias ([C] each;
// nil skips). Like PyTorch it refuses an input with one spatial position,
// whose variance is undefined. It is GroupNorm with one group per channel.
func (t *Tensor) InstanceNorm(weight, bias *Tensor, eps float64) *Tensor {
	t.check("InstanceNorm")
	if t.Dim() < 3 {
		usage("InstanceNorm", "needs [N, C, spatial...], got %v", t.shape)
	}
	if n := t.NumElements() / max(1, t.shape[0]*t.shape[1]); n < 2 && t.NumElements() > 0 {
		usage("InstanceNorm", "expected more than one spatial position per channel, got input %v", t.shape)
	}
	shape := t.Shape()
	y := t.Reshape(shape[0], shape[1], -1).normalize([]int{2}, eps).Reshape(shape...)
	return y.affine("InstanceNorm", weight, bias, []int{shape[1]}, channelShape(len(shape)))
}
