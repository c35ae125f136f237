package vec

import "math"

// goWinKernels returns the pure-Go window kernels.
func goWinKernels() *winKernels {
	return &winKernels{maxPool2x2: goMaxPool2x2, maxUnpool2x2: goMaxUnpool2x2, copyRows: goCopyRows, addRows: goAddRows}
}

// b2u is 1 for true, 0 for false (a SETcc, no branch).
func b2u(b bool) uint32 {
	var u uint32
	if b {
		u = 1
	}
	return u
}

// MaxMask returns all ones when candidate v replaces the running maximum
// best of a window scanned in order (v > best, or v is NaN and best is
// not: the first NaN, else the first largest value wins), else zero. It
// compiles without branches, for scalar window loops.
func MaxMask(v, best float32) uint32 {
	return -(b2u(v > best) | (b2u(v != v) &^ b2u(best != best)))
}

// Blend returns a where m is all ones and b where m is zero, bit by bit.
func Blend(m uint32, a, b float32) float32 {
	return math.Float32frombits(math.Float32bits(a)&m | math.Float32bits(b)&^m)
}

func goMaxPool2x2(out []float32, idx []int32, x []float32, ldx, iw, oh, ow int) {
	for r := 0; r < oh; r++ {
		r0 := x[2*r*ldx:][:2*ow]
		r1 := x[(2*r+1)*ldx:][:2*ow]
		o := out[r*ow:][:ow]
		base := int32(2 * r * iw)
		w := int32(iw)
		for c := range o {
			best, arg := r0[2*c], int32(0)
			m := MaxMask(r0[2*c+1], best)
			best, arg = Blend(m, r0[2*c+1], best), arg|int32(m&1)
			m = MaxMask(r1[2*c], best)
			best, arg = Blend(m, r1[2*c], best), int32(m)&w|^int32(m)&arg
			m = MaxMask(r1[2*c+1], best)
			best, arg = Blend(m, r1[2*c+1], best), int32(m)&(w+1)|^int32(m)&arg
			o[c] = best
			if idx != nil {
				idx[r*ow+c] = base + int32(2*c) + arg
			}
		}
	}
}

func goMaxUnpool2x2(dx, dy []float32, idx []int32, ldx, iw, oh, ow int) bool {
	for r := 0; r < oh; r++ {
		d0 := dx[2*r*ldx:][:2*ow]
		d1 := dx[(2*r+1)*ldx:][:2*ow]
		base := 2 * r * iw
		for c, g := range dy[r*ow : (r+1)*ow] {
			code := int(idx[r*ow+c]) - base - 2*c
			if code != 0 && code != 1 && code != iw && code != iw+1 {
				return false
			}
			d0[2*c] = Blend(-b2u(code == 0), g, 0)
			d0[2*c+1] = Blend(-b2u(code == 1), g, 0)
			d1[2*c] = Blend(-b2u(code == iw), g, 0)
			d1[2*c+1] = Blend(-b2u(code == iw+1), g, 0)
		}
	}
	return true
}

func goCopyRows(dst []float32, ldd int, src []float32, lds int, rows, cols int) {
	for i := 0; i < rows; i++ {
		copy(dst[i*ldd:i*ldd+cols], src[i*lds:i*lds+cols])
	}
}

func goAddRows(dst []float32, ldd int, src []float32, lds int, rows, cols int) {
	for i := 0; i < rows; i++ {
		d, s := dst[i*ldd:i*ldd+cols], src[i*lds:i*lds+cols]
		for j, v := range s {
			d[j] += v
		}
	}
}
