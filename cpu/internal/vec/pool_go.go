package vec

import "math"

// goWinKernels returns the pure-Go window kernels.
func goWinKernels() *winKernels {
	return &winKernels{maxPool2x2: goMaxPool2x2, maxUnpool2x2: goMaxUnpool2x2, copyBlocks: goCopyBlocks, addBlocks: goAddBlocks,
		conv3x3: goConv3x3, corr3x3: goCorr3x3, col2im3x3: goCol2Im3x3, splitPairs: goSplitPairs}
}

func goSplitPairs(even, odd, x []float32, pairs int) {
	for i := range pairs {
		even[i], odd[i] = x[2*i], x[2*i+1]
	}
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
// best of a window scanned in order (v > best, or v is NaN: the last NaN,
// else the first largest value wins, as in PyTorch's max pooling), else
// zero. It compiles without branches, for scalar window loops.
func MaxMask(v, best float32) uint32 {
	return -(b2u(v > best) | b2u(v != v))
}

// Blend returns a where m is all ones and b where m is zero, bit by bit.
func Blend(m uint32, a, b float32) float32 {
	return math.Float32frombits(math.Float32bits(a)&m | math.Float32bits(b)&^m)
}

func goMaxPool2x2(out []float32, idx []int32, x []float32, ldx, iw, oh, ow int) {
	maxPool2x2Cols(out, idx, x, ldx, iw, oh, ow, 0)
}

// maxPool2x2Cols is goMaxPool2x2 for the outputs of columns c0 up of every
// row.
func maxPool2x2Cols(out []float32, idx []int32, x []float32, ldx, iw, oh, ow, c0 int) {
	for r := 0; r < oh; r++ {
		r0 := x[2*r*ldx:][:2*ow]
		r1 := x[(2*r+1)*ldx:][:2*ow]
		o := out[r*ow:][:ow]
		base := int32(2 * r * iw)
		w := int32(iw)
		for c := c0; c < ow; c++ {
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
	return maxUnpool2x2Cols(dx, dy, idx, ldx, iw, oh, ow, 0)
}

// maxUnpool2x2Cols is goMaxUnpool2x2 for the outputs of columns c0 up of
// every row.
func maxUnpool2x2Cols(dx, dy []float32, idx []int32, ldx, iw, oh, ow, c0 int) bool {
	for r := 0; r < oh; r++ {
		rows := [2][]float32{dx[2*r*ldx:][:2*ow], dx[(2*r+1)*ldx:][:2*ow]}
		clear(rows[0][2*c0:])
		clear(rows[1][2*c0:])
		base := 2 * r * iw
		for c := c0; c < ow; c++ {
			g := dy[r*ow+c]
			code := int(idx[r*ow+c]) - base - 2*c
			hi := int(b2u(code >= iw)) // the window's second row
			col := code - hi*iw
			if uint(col) > 1 {
				return false
			}
			rows[hi][2*c+col] = g
		}
	}
	return true
}

func goCopyBlocks(dst []float32, ldd, bd int, src []float32, lds, bs int, blocks, rows, cols int) {
	for k := 0; k < blocks; k++ {
		for i := 0; i < rows; i++ {
			copy(dst[k*bd+i*ldd:][:cols], src[k*bs+i*lds:][:cols])
		}
	}
}

func goAddBlocks(dst []float32, ldd, bd int, src []float32, lds, bs int, blocks, rows, cols int) {
	for k := 0; k < blocks; k++ {
		for i := 0; i < rows; i++ {
			d, s := dst[k*bd+i*ldd:][:cols], src[k*bs+i*lds:][:cols]
			for j, v := range s {
				d[j] += v
			}
		}
	}
}

// The pure-Go 3×3 kernels round each product and each sum (the assembly
// fuses them): math.FMA costs a call per multiply-add here, which made the
// fallback five times slower than im2col and the pure-Go product. The
// float32 conversions keep the compiler from fusing them on arm64, so the
// fallback computes the same values on every architecture.

func goConv3x3(y []float32, ldy int, x []float32, ldx int, w []float32, rows, cols int, acc bool) {
	conv3x3Cols(y, ldy, x, ldx, w, rows, cols, acc, 0)
}

// conv3x3Cols is goConv3x3 for the columns c0 <= c < cols of every row.
func conv3x3Cols(y []float32, ldy int, x []float32, ldx int, w []float32, rows, cols int, acc bool, c0 int) {
	for r := 0; r < rows; r++ {
		out := y[r*ldy+c0 : r*ldy+cols]
		if !acc {
			clear(out)
		}
		for a := 0; a < 3; a++ { // taps in the kernels' order, one row pass each
			xr := x[(r+a)*ldx:][:cols+2]
			for b := 0; b < 3; b++ {
				wv, xs := w[3*a+b], xr[b+c0:b+cols]
				for c := range out {
					out[c] += float32(wv * xs[c])
				}
			}
		}
	}
}

func goCorr3x3(acc, dy []float32, ldy int, x []float32, ldx int, rows, cols int) {
	var sum [9]float32
	for r := 0; r < rows; r++ {
		d := dy[r*ldy : r*ldy+cols]
		for a := 0; a < 3; a++ {
			xr := x[(r+a)*ldx:][:cols+2]
			for b := 0; b < 3; b++ {
				s, xs := sum[3*a+b], xr[b:b+cols]
				for c, v := range d {
					s += float32(v * xs[c])
				}
				sum[3*a+b] = s
			}
		}
	}
	for t, s := range sum {
		acc[t] += s
	}
}

// col2im3x3Cols is goCol2Im3x3 for the columns j0 <= j < j1 of every row:
// each element's taps summed in the same order, from zero.
func col2im3x3Cols(dx []float32, ldx int, col []float32, ts, oh, ow, j0, j1 int) {
	for i := 0; i < oh+2; i++ {
		for j := j0; j < j1; j++ {
			var s float32
			for a := 0; a < 3; a++ {
				r := i - a
				if r < 0 || r >= oh {
					continue
				}
				for b := 0; b < 3; b++ {
					if c := j - b; c >= 0 && c < ow {
						s += col[(3*a+b)*ts+r*ow+c]
					}
				}
			}
			dx[i*ldx+j] = s
		}
	}
}

func goCol2Im3x3(dx []float32, ldx int, col []float32, ts, oh, ow int) {
	for i := 0; i < oh+2; i++ {
		out := dx[i*ldx : i*ldx+ow+2]
		clear(out)
		for a := 0; a < 3; a++ { // taps in order, one row pass each
			r := i - a
			if r < 0 || r >= oh {
				continue
			}
			for b := 0; b < 3; b++ {
				src := col[(3*a+b)*ts+r*ow:][:ow]
				dst := out[b : b+ow]
				for c, v := range src {
					dst[c] += v
				}
			}
		}
	}
}
