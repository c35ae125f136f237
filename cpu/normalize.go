package cpu

import (
	"math"
	"runtime"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// normalizeNow runs k one row at a time: the mean and the biased variance
// accumulated in float64, then (x − mean)·rstd.
func (d *Device) normalizeNow(k *device.NormalizeKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	return d.forRows(k.Out, []device.View{k.In}, func(dst []float32, in [][]float32) {
		mean, rstd := rowMoments(in[0], k.Eps)
		vec.SubScalar(dst, in[0], mean)
		vec.MulScalar(dst, dst, rstd)
	})
}

// normalizeBackwardNow runs k one row at a time: with x̂ and rstd recomputed
// from the row of X, rstd·(g − mean(g) − x̂·mean(g·x̂)), the means
// accumulated in float64.
func (d *Device) normalizeBackwardNow(k *device.NormalizeBackwardKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	return d.forRows(k.Out, []device.View{k.X, k.G}, func(dst []float32, in [][]float32) {
		x, g := in[0], in[1]
		n := float64(len(x))
		mean, rstd := rowMoments(x, k.Eps)
		vec.SubScalar(dst, x, mean)
		vec.MulScalar(dst, dst, rstd) // x̂
		meanG, meanGX := float32(vec.Sum(g)/n), float32(vec.Dot(g, dst)/n)
		vec.MulScalar(dst, dst, meanGX)
		vec.Sub(dst, g, dst)
		vec.SubScalar(dst, dst, meanG)
		vec.MulScalar(dst, dst, rstd)
	})
}

// rowMoments returns a row's mean and 1/sqrt(var + eps) with its biased
// variance, accumulated in float64.
func rowMoments(x []float32, eps float64) (mean, rstd float32) {
	n := float64(len(x))
	mean = float32(vec.Sum(x) / n)
	return mean, float32(1 / math.Sqrt(vec.SumSqDiff(x, mean)/n+eps))
}

// The CPU backend has the optional one-pass softmax and normalization row
// kernels.
var (
	_ device.RowSoftmaxer     = (*Device)(nil)
	_ device.RowSoftmaxGrader = (*Device)(nil)
	_ device.RowNormalizer    = (*Device)(nil)
)
