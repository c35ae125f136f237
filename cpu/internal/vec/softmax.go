package vec

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// SoftmaxRow sets dst to the softmax of the row src: exp(src[i]-m)/sum with
// m the row's maximum, the sum accumulated in float64. Like PyTorch, a row
// that is all -Inf, or holds a NaN or +Inf, gives NaN everywhere. dst may be
// src.
func SoftmaxRow(dst, src []float32) {
	checkLen("SoftmaxRow", "dst, src", len(dst), len(src))
	if len(src) == 0 {
		return
	}
	k := current
	m := k.max(src)
	s := k.expSub(dst, src, m)
	k.scalar[device.OpMul](dst, dst, float32(1/s))
}

// LogSoftmaxRow sets dst to the log-softmax of the row src:
// (src[i]-m) - log(sum exp(src[j]-m)) with m the row's maximum. Like PyTorch, a
// row that is all -Inf, or holds a NaN or +Inf, gives NaN everywhere. dst may
// be src.
func LogSoftmaxRow(dst, src []float32) {
	checkLen("LogSoftmaxRow", "dst, src", len(dst), len(src))
	if len(src) == 0 {
		return
	}
	k := current
	m := k.max(src)
	ls := float32(math.Log(k.sumExpSub(src, m)))
	k.scalar[device.OpSub](dst, src, m)
	k.scalar[device.OpSub](dst, dst, ls)
}
