package ref

import "math"

// Interpolate is torch.nn.functional.interpolate of x [N, C, in...] to the
// spatial size out, in nearest or (bi/tri)linear mode, in float64. scale is
// PyTorch's per-dimension source scale: in/out when a size is given, or
// 1/scale_factor; align corners replaces it with (in-1)/(out-1).
func Interpolate(x *Array, out []int, scale []float64, nearest, alignCorners bool) *Array {
	nd := x.Dim() - 2
	in := x.shape[2:]
	type tap struct {
		lo, hi int
		w      float64
	}
	taps := make([][]tap, nd)
	for i := range nd {
		taps[i] = make([]tap, out[i])
		for d := range out[i] {
			switch {
			case nearest:
				j := min(int(math.Floor(float64(d)*scale[i])), in[i]-1)
				taps[i][d] = tap{j, j, 0}
			default:
				var src float64
				if alignCorners {
					if out[i] > 1 {
						src = float64(d) * float64(in[i]-1) / float64(out[i]-1)
					}
				} else {
					src = math.Max((float64(d)+0.5)*scale[i]-0.5, 0)
				}
				lo := min(int(src), in[i]-1)
				taps[i][d] = tap{lo, min(lo+1, in[i]-1), src - float64(lo)}
			}
		}
	}
	shape := append([]int{x.shape[0], x.shape[1]}, out...)
	res := make([]float64, 0, numElements(shape))
	corner := make([]int, nd)
	for i := range corner {
		corner[i] = 2
	}
	pos := make([]int, nd+2)
	forEachIndex(shape, func(idx []int) {
		v := 0.0
		forEachIndex(corner, func(c []int) {
			w := 1.0
			pos[0], pos[1] = idx[0], idx[1]
			for i := range nd {
				t := taps[i][idx[2+i]]
				if c[i] == 0 {
					pos[2+i], w = t.lo, w*(1-t.w)
				} else {
					pos[2+i], w = t.hi, w*t.w
				}
			}
			if w != 0 {
				v += w * x.At(pos...)
			}
		})
		res = append(res, v)
	})
	return New(res, shape...)
}
