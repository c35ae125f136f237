package ref

import (
	"fmt"
	"math"
	"slices"
)

// normalize returns (x - mean) / sqrt(var + eps) with the biased mean and
// variance taken over axes.
func normalize(x *Array, eps float64, axes ...int) *Array {
	mean := Mean(x, true, axes...)
	v := Var(x, 0, true, axes...)
	return MapN("normalize", func(a []float64) float64 {
		return (a[0] - a[1]) / math.Sqrt(a[2]+eps)
	}, x, mean, v)
}

// affine multiplies by weight and adds bias where they are not nil.
func affine(y, weight, bias *Array) *Array {
	if weight != nil {
		y = Mul(y, weight)
	}
	if bias != nil {
		y = Add(y, bias)
	}
	return y
}

// LayerNorm normalizes over the last normalizedDims dimensions with the
// biased variance, then applies weight and bias (of those dimensions' shape;
// nil skips them).
func LayerNorm(x *Array, normalizedDims int, weight, bias *Array, eps float64) *Array {
	if normalizedDims < 1 || normalizedDims > x.Dim() {
		panic(fmt.Sprintf("ref.LayerNorm: %d normalized dims for shape %v", normalizedDims, x.shape))
	}
	tail := x.shape[x.Dim()-normalizedDims:]
	for _, p := range []*Array{weight, bias} {
		if p != nil && !slices.Equal(p.shape, tail) {
			panic(fmt.Sprintf("ref.LayerNorm: parameter %v for normalized shape %v", p.shape, tail))
		}
	}
	axes := make([]int, normalizedDims)
	for i := range axes {
		axes[i] = x.Dim() - normalizedDims + i
	}
	return affine(normalize(x, eps, axes...), weight, bias)
}

// channelView reshapes a per-channel vector [C] of x [N, C, spatial...] to
// [C, 1, ...] so that it broadcasts along dimension 1.
func channelView(op string, p *Array, x *Array) *Array {
	if p == nil {
		return nil
	}
	if p.Dim() != 1 || p.shape[0] != x.shape[1] {
		panic(fmt.Sprintf("ref.%s: per-channel parameter %v for input %v", op, p.shape, x.shape))
	}
	shape := make([]int, x.Dim()-1)
	for i := range shape {
		shape[i] = 1
	}
	shape[0] = x.shape[1]
	return p.Reshape(shape...)
}

// BatchNorm is torch.nn.functional.batch_norm on x [N, C, spatial...]. In
// training it normalizes with the batch statistics (biased variance) and
// returns running statistics updated as (1-momentum)*old + momentum*batch
// with the unbiased batch variance (nil in, nil out); otherwise it normalizes
// with runningMean and runningVar and returns them unchanged.
func BatchNorm(x, runningMean, runningVar, weight, bias *Array, training bool, momentum, eps float64) (y, newMean, newVar *Array) {
	if x.Dim() < 2 {
		panic(fmt.Sprintf("ref.BatchNorm: input %v needs [N, C, ...]", x.shape))
	}
	w, b := channelView("BatchNorm", weight, x), channelView("BatchNorm", bias, x)
	axes := []int{0}
	for d := 2; d < x.Dim(); d++ {
		axes = append(axes, d)
	}
	if !training {
		m, v := channelView("BatchNorm", runningMean, x), channelView("BatchNorm", runningVar, x)
		y = MapN("BatchNorm", func(a []float64) float64 { return (a[0] - a[1]) / math.Sqrt(a[2]+eps) }, x, m, v)
		return affine(y, w, b), runningMean, runningVar
	}
	y = affine(normalize(x, eps, axes...), w, b)
	if runningMean != nil {
		newMean = Add(Map(runningMean, func(r float64) float64 { return (1 - momentum) * r }),
			Map(Mean(x, false, axes...), func(m float64) float64 { return momentum * m }))
	}
	if runningVar != nil {
		newVar = Add(Map(runningVar, func(r float64) float64 { return (1 - momentum) * r }),
			Map(Var(x, 1, false, axes...), func(v float64) float64 { return momentum * v }))
	}
	return y, newMean, newVar
}

// GroupNorm splits the channels of x [N, C, spatial...] into groups,
// normalizes each (sample, group) over its channels and positions with the
// biased variance, then applies per-channel weight and bias.
func GroupNorm(x *Array, groups int, weight, bias *Array, eps float64) *Array {
	if x.Dim() < 2 || groups < 1 || x.shape[1]%groups != 0 {
		panic(fmt.Sprintf("ref.GroupNorm: %d groups for input %v", groups, x.shape))
	}
	w, b := channelView("GroupNorm", weight, x), channelView("GroupNorm", bias, x)
	g := x.Reshape(x.shape[0], groups, -1)
	y := normalize(g, eps, 2).Reshape(x.shape...)
	return affine(y, w, b)
}
