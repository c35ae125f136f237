//go:build !purego

package vec

import "math"

// archWinKernels returns the window kernels for LevelNEON: NEON max
// pooling and its backward, col2im, the direct 3×3 convolution, block
// addition and pair splitting (each element computed as the pure-Go kernel
// computes it, the columns the vectors leave by the pure-Go definitions);
// the rest are the pure-Go kernels.
func archWinKernels(l Level) *winKernels {
	if l != LevelNEON {
		return nil
	}
	k := goWinKernels()
	k.maxPool2x2 = func(out []float32, idx []int32, x []float32, ldx, iw, oh, ow int) {
		if idx == nil {
			maxPool2x2NEON(out, idx, x, ldx, iw, oh, ow)
		} else {
			maxPool2x2IdxNEON(out, idx, x, ldx, iw, oh, ow)
		}
		maxPool2x2Cols(out, idx, x, ldx, iw, oh, ow, ow&^3)
	}
	k.maxUnpool2x2 = func(dx, dy []float32, idx []int32, ldx, iw, oh, ow int) bool {
		if 2*oh*iw > math.MaxInt32 { // the kernel's codes are int32
			return goMaxUnpool2x2(dx, dy, idx, ldx, iw, oh, ow)
		}
		return maxUnpool2x2NEON(dx, dy, idx, ldx, iw, oh, ow) && maxUnpool2x2Cols(dx, dy, idx, ldx, iw, oh, ow, ow&^3)
	}
	k.col2im3x3 = func(dx []float32, ldx int, col []float32, ts, oh, ow int) {
		nv := (ow - 2) / 4 // vectors of the columns every tap reaches
		if nv < 1 {
			goCol2Im3x3(dx, ldx, col, ts, oh, ow)
			return
		}
		col2im3x3NEON(dx, ldx, col, ts, oh, ow)
		col2im3x3Cols(dx, ldx, col, ts, oh, ow, 0, 2)
		col2im3x3Cols(dx, ldx, col, ts, oh, ow, 2+4*nv, ow+2)
	}
	k.conv3x3 = func(y []float32, ldy int, x []float32, ldx int, w []float32, rows, cols int, acc bool) {
		conv3x3NEON(y, ldy, x, ldx, w, rows, cols, acc)
		conv3x3Cols(y, ldy, x, ldx, w, rows, cols, acc, cols&^3)
	}
	k.addBlocks = addBlocksNEON
	k.splitPairs = func(even, odd, x []float32, pairs int) {
		splitPairsNEON(even, odd, x, pairs)
		done := pairs &^ 3
		goSplitPairs(even[done:], odd[done:], x[2*done:], pairs-done)
	}
	return k
}
