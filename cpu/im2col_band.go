package cpu

import "github.com/shaderflow/shaderflow/cpu/internal/vec"

// Patch matrices from a padded band of input rows. For a 2-D convolution
// with tiles of whole output rows, the input rows a tile reads are first
// copied, once per tile, into a band with the padding's zeros around them;
// every kernel tap's rows of the patch matrix are then one block copy from
// the band (all channels, all rows of the tile), with no border to clear
// and no per-row bookkeeping. A band row stores the padded input row split
// by phase of the width stride s (columns c ≡ φ mod s together, in order),
// so that the columns one tap reads, s apart in the input, are adjacent.
// The band costs a copy of the tile's input rows, under a ninth of the
// patches for a 3×3 window; row by row (patchRow) the calls' overhead
// outweighed the copies.

// bandable reports whether patches (forward and weight gradient) can come
// from bands. A 1×1 window reads each input element at most once, so its
// patches are copied straight from X: through a band, a stride of two
// copied the rows and columns it skips.
func (j *convJob) bandable() bool {
	g := &j.g
	return !j.direct && g.kVol > 1 && g.in[0] == 1 && g.k[0] == 1 && j.xst[4] == 1 && g.rowsApart(j.xst) &&
		g.out[2] > 0 && j.tile%g.out[2] == 0
}

// band is the layout of a tile's band: rows of width floats (s phases of
// phase floats each), one plane per channel.
type band struct{ rows, phase, width, plane int }

// bandShape returns the band of a tile of j.tile output positions.
func (j *convJob) bandShape() band {
	g := &j.g
	rows := (j.tile/g.out[2]-1)*g.s[1] + (g.k[1]-1)*g.dl[1] + 1
	phase := (g.in[2] + 2*g.p[2] + g.s[2] - 1) / g.s[2]
	return band{rows: rows, phase: phase, width: phase * g.s[2], plane: rows * phase * g.s[2]}
}

// prepareBand reports whether j's patches come from bands and if so sizes
// and clears ws.band: a band's slots outside the input stay zero,
// since bandPatches writes only the others.
func (j *convJob) prepareBand(ws *workspace) bool {
	if !j.bandable() {
		return false
	}
	ws.band = grow(ws.band, j.g.cg*j.bandShape().plane)
	clear(ws.band)
	return true
}

// bandPatches writes into col (ldr floats a row) the patch matrix of image
// n, group gi, for output rows [oh0, oh0+nr), through the band in ws.band
// (prepareBand).
func (j *convJob) bandPatches(ws *workspace, col []float32, ldr, n, gi, oh0, nr int) {
	g := &j.g
	bs, s := j.bandShape(), g.s[2]
	buf := j.fillBand(ws, n, gi, oh0, nr)
	ow := g.out[2]
	for tap := 0; tap < g.kVol; tap++ {
		kh, kw := tap/g.k[2], tap%g.k[2]
		c := kw * g.dl[2] // the tap's first padded column
		from := kh*g.dl[1]*bs.width + c%s*bs.phase + c/s
		vec.CopyBlocks(col[tap*ldr:], ow, g.kVol*ldr, buf[from:], g.s[1]*bs.width, bs.plane, g.cg, nr, ow)
	}
}

// fillBand copies into ws.band (prepareBand) the input rows that output
// rows [oh0, oh0+nr) of image n, group gi read, and returns the band.
func (j *convJob) fillBand(ws *workspace, n, gi, oh0, nr int) []float32 {
	g := &j.g
	st, bs, s := j.xst, j.bandShape(), g.s[2]
	buf := ws.band[:g.cg*bs.plane]
	// Band row r holds input row top + r; rows outside the image are zero.
	top := oh0*g.s[1] - g.p[1]
	used := (nr-1)*g.s[1] + (g.k[1]-1)*g.dl[1] + 1
	lo, hi := max(0, -top), max(0, min(used, g.in[1]-top))
	for ci := 0; ci < g.cg; ci++ {
		b := buf[ci*bs.plane : ci*bs.plane+used*bs.width]
		if hi <= lo {
			clear(b)
			continue
		}
		clear(b[:lo*bs.width])
		clear(b[hi*bs.width:])
	}
	if hi > lo {
		src := j.xoff + n*st[0] + gi*g.cg*st[1] + (top+lo)*st[3]
		if s == 1 {
			vec.CopyBlocks(buf[lo*bs.width+g.p[2]:], bs.width, bs.plane, j.x[src:], st[3], st[1], g.cg, hi-lo, g.in[2])
		} else {
			j.fillPhases(buf[lo*bs.width:], bs, src, hi-lo)
		}
	}
	return buf
}

// fillPhases copies rows input rows of every channel of the group, from
// element src of X, into the band rows at dst, padded column c (input
// column c - p) at phase c mod s, position c / s.
func (j *convJob) fillPhases(dst []float32, bs band, src, rows int) {
	g := &j.g
	st, s, p, iw := j.xst, g.s[2], g.p[2], g.in[2]
	for ci := 0; ci < g.cg; ci++ {
		for r := 0; r < rows; r++ {
			row := dst[ci*bs.plane+r*bs.width:][:bs.width]
			x := j.x[src+ci*st[1]+r*st[3]:][:iw]
			if s == 2 {
				vec.SplitPairs(row[p%2*bs.phase+p/2:], row[(p+1)%2*bs.phase+(p+1)/2:], x)
				continue
			}
			for ph := 0; ph < s; ph++ {
				c0 := ((ph-p)%s + s) % s // the first input column of the phase
				if c0 >= iw {
					continue
				}
				out := row[ph*bs.phase+(c0+p)/s:]
				for i, k := 0, c0; k < iw; i, k = i+1, k+s {
					out[i] = x[k]
				}
			}
		}
	}
}
