package ref

import (
	"fmt"
	"math"
)

// References for the neural-network functionals: instance norm, one-hot,
// ceil-mode pooling and transposed convolution, each written from PyTorch's
// definition rather than from the device's geometry.

// InstanceNorm normalizes each channel of each sample of x [N, C, ...] over
// its positions (torch.nn.functional.instance_norm with input statistics).
func InstanceNorm(x, weight, bias *Array, eps float64) *Array {
	return GroupNorm(x, x.shape[1], weight, bias, eps)
}

// OneHot is torch.nn.functional.one_hot of integer-valued x.
func OneHot(x *Array, classes int) *Array {
	shape := append(x.Shape(), classes)
	out := make([]float64, 0, numElements(shape))
	for _, v := range x.Values() {
		if v < 0 || v >= float64(classes) {
			panic(fmt.Sprintf("ref.OneHot: class %g of %d", v, classes))
		}
		for c := range classes {
			out = append(out, oneIf(float64(c) == v))
		}
	}
	return New(out, shape...)
}

func oneIf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// PoolCeil is max (isMax set) or average pooling of x [N, C, in...] in
// PyTorch's ceil mode: out = ceil((in + 2p - d(k-1) - 1)/s) + 1, less one
// when the last window would start at or past in + p. An average divides by
// the taps inside [-p, in+p) (count_include_pad) or inside [0, in).
func PoolCeil(x *Array, opt PoolOptions, isMax bool) *Array {
	nd := x.Dim() - 2
	k := perDim("PoolCeil", "kernel", opt.Kernel, 0, nd)
	st := opt.Stride
	if len(st) == 0 {
		st = k
	}
	s := perDim("PoolCeil", "stride", st, 1, nd)
	p := perDim("PoolCeil", "padding", opt.Padding, 0, nd)
	d := perDim("PoolCeil", "dilation", opt.Dilation, 1, nd)
	in := x.shape[2:]
	out := make([]int, nd)
	for i := range nd {
		num := in[i] + 2*p[i] - d[i]*(k[i]-1) - 1
		out[i] = (num+s[i]-1)/s[i] + 1
		if (out[i]-1)*s[i] >= in[i]+p[i] {
			out[i]--
		}
	}
	shape := append([]int{x.shape[0], x.shape[1]}, out...)
	res := make([]float64, 0, numElements(shape))
	pos := make([]int, nd)
	forEachIndex(shape, func(idx []int) {
		m, sum, count := math.Inf(-1), 0.0, 0
		forEachIndex(k, func(t []int) {
			inside, inPad := true, true
			for i := range nd {
				pos[i] = idx[2+i]*s[i] - p[i] + t[i]*d[i]
				inside = inside && pos[i] >= 0 && pos[i] < in[i]
				inPad = inPad && pos[i] >= -p[i] && pos[i] < in[i]+p[i]
			}
			if inside {
				v := x.At(append([]int{idx[0], idx[1]}, pos...)...)
				m = maxNaN(m, v)
				sum += v
			}
			if inside && opt.CountExcludePad || inPad && !opt.CountExcludePad {
				count++
			}
		})
		if isMax {
			res = append(res, m)
		} else {
			res = append(res, sum/float64(count))
		}
	})
	return New(res, shape...)
}

// ConvTranspose is torch.nn.functional.conv_transposeNd of x [N, Cin, in...]
// by w [Cin, Cout/groups, k...] plus bias [Cout] (nil for none): every input
// element scatters x·w to output position i·stride - padding + k·dilation,
// in an output of (in-1)·stride - 2·padding + dilation·(k-1) +
// outputPadding + 1.
func ConvTranspose(x, w, bias *Array, stride, padding, outputPadding, dilation []int, groups int) *Array {
	nd := x.Dim() - 2
	s := perDim("ConvTranspose", "stride", stride, 1, nd)
	p := perDim("ConvTranspose", "padding", padding, 0, nd)
	op := perDim("ConvTranspose", "output padding", outputPadding, 0, nd)
	d := perDim("ConvTranspose", "dilation", dilation, 1, nd)
	groups = max(groups, 1)
	cin, coutG := x.shape[1], w.shape[1]
	cinG := cin / groups
	kernel := w.shape[2:]
	out := make([]int, nd)
	for i := range nd {
		out[i] = (x.shape[2+i]-1)*s[i] - 2*p[i] + d[i]*(kernel[i]-1) + op[i] + 1
	}
	shape := append([]int{x.shape[0], coutG * groups}, out...)
	res := New(make([]float64, numElements(shape)), shape...)
	pos := make([]int, nd+2)
	forEachIndex(x.shape, func(xi []int) {
		v := x.At(xi...)
		g := xi[1] / cinG
		forEachIndex(w.shape[1:], func(wi []int) {
			pos[0], pos[1] = xi[0], g*coutG+wi[0]
			for i := range nd {
				pos[2+i] = xi[2+i]*s[i] - p[i] + wi[1+i]*d[i]
				if pos[2+i] < 0 || pos[2+i] >= out[i] {
					return
				}
			}
			res.data[flatIndex(pos, shape)] += v * w.At(append([]int{xi[1]}, wi...)...)
		})
	})
	if bias != nil {
		per := numElements(out)
		for i := range res.data {
			res.data[i] += bias.At(i / per % shape[1])
		}
	}
	return res
}
