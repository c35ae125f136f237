package cpu

import "github.com/shaderflow/shaderflow/cpu/internal/vec"

// Direct 3×3 convolution for images with few channels per group (the
// first layer of an image network, depthwise layers): im2col makes a patch
// matrix nine times the image for a product too thin to run sgemm at speed,
// while a direct kernel (vec.Conv3x3, vec.Corr3x3) reads each input row
// from L1 nine times and keeps its sums in registers.
//
// Direct kernels won for the weight gradient with one or two input channels
// and for depthwise layers, but each input channel is another forward pass
// over the output (docs/measurements.md). So the forward runs directly only
// for single channels feeding few filters per group (directMaxFilters, a
// threshold between the two measured points, 1 and 32).

// directMaxChannels is the most input channels per group that the direct
// kernels take: forward, and weight gradient.
var directMaxChannels = [2]int{1, 2}

// directMaxFilters is the most filters per group that the direct forward
// takes; sgemm is at least as fast for more.
const directMaxFilters = 8

// direct3x3 reports whether the convolution can run on the direct 3×3
// kernels: a 2-D 3×3 window, stride and dilation one, no padding, few
// channels per group, and image rows contiguous.
func (j *convJob) direct3x3(weight bool) bool {
	g := &j.g
	maxC := directMaxChannels[0]
	if weight {
		maxC = directMaxChannels[1]
	} else if g.og > directMaxFilters {
		return false
	}
	return g.in[0] == 1 && g.k == [3]int{1, 3, 3} && g.s == [3]int{1, 1, 1} && g.dl == [3]int{1, 1, 1} &&
		g.p == [3]int{} && g.cg <= maxC && j.xst[4] == 1 && j.xst[3] >= g.in[2]
}

// imagePlane returns channel c of image n of X, from its first element.
func (j *convJob) imagePlane(n, c int) []float32 {
	return j.x[j.xoff+n*j.xst[0]+c*j.xst[1]:]
}

// convForwardDirect computes Y[n, o] = Σ_c conv3x3(X[n, c], W[o, c]) image
// by image, each image's epilogue while its result is in cache.
func (d *Device) convForwardDirect(j *convJob) error {
	g := &j.g
	per := g.o * g.outVol
	par, err := d.forImages(g.n, per*j.cgk, func(ws *workspace, n, _ int, par bool) {
		for o := 0; o < g.o; o++ {
			c0 := o / g.og * g.cg
			y := j.res[(n*g.o+o)*g.outVol:][:g.outVol]
			for ci := 0; ci < g.cg; ci++ {
				w := j.w[(o*g.cg+ci)*9:][:9]
				vec.Conv3x3(y, g.out[2], j.imagePlane(n, c0+ci), j.xst[3], w, g.out[1], g.out[2], ci > 0)
			}
		}
		j.imageEpilogue(ws, n*per, (n+1)*per, par)
	})
	return d.finish(j, par, err)
}

// convWeightDirect computes dW[o, c] = Σ_n corr3x3(dY[n, o], X[n, c]),
// output channels in parallel, images in order (so the sum is
// deterministic).
func (d *Device) convWeightDirect(j *convJob) error {
	g := &j.g
	cost := g.n * g.outVol * j.cgk
	err := d.runTasks(g.o, cost, func(_ *workspace, o int) {
		c0 := o / g.og * g.cg
		acc := j.res[o*j.cgk : (o+1)*j.cgk]
		clear(acc)
		for n := 0; n < g.n; n++ {
			dy := j.dy[(n*g.o+o)*g.outVol:][:g.outVol]
			for ci := 0; ci < g.cg; ci++ {
				vec.Corr3x3(acc[ci*9:(ci+1)*9], dy, g.out[2], j.imagePlane(n, c0+ci), j.xst[3], g.out[1], g.out[2])
			}
		}
	})
	if err != nil || j.epi == nil {
		return err
	}
	return d.run(j.epi)
}
