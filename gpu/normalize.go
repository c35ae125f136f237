package gpu

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// EncodeNormalizeSlabs validates and encodes a row normalization with the
// softmax's row layout (EncodeSoftmaxSlabs): rows shared by the
// invocations of a workgroup, in slabs when the views span more than one
// binding, a row over the loop budget refused.
func EncodeNormalizeSlabs(k *device.NormalizeKernel, t Target) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	// Passes: the largest magnitude, the mean, the variance, the write.
	return encodeRowSlabs(rowKernel{name: "normalize", entry: "normalize_rows", ins: []device.View{k.In}, out: k.Out, arg: math.Float32bits(float32(k.Eps)), passes: 4}, t)
}

// EncodeNormalizeBackwardSlabs validates and encodes the gradient of a row
// normalization as EncodeNormalizeSlabs does the normalization.
func EncodeNormalizeBackwardSlabs(k *device.NormalizeBackwardKernel, t Target) ([]*Launch, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	// Passes: the forward's three, the sum of g·x̂, the write.
	return encodeRowSlabs(rowKernel{name: "normalize backward", entry: "normalize_backward_rows", ins: []device.View{k.X, k.G}, out: k.Out, arg: math.Float32bits(float32(k.Eps)), passes: 5}, t)
}
