package cpu

import "github.com/shaderflow/shaderflow/cpu/internal/vec"

// patches moves data between an image and its patch matrix. For image n and
// channels [c0, c0+cg), the patch matrix holds, for output positions
// [t0, t0+nt), element (r, t) with r = ci*kVol + kk at col[r*ldr + t]: the
// input value the kernel tap kk of channel ci sees at output position t0+t,
// or zero in the padding.
//
// With add false it gathers the image (strides st over x, from offset xoff)
// into col (im2col). With add true it adds col back into x (col2im), a
// contiguous [N, C, in...] gradient; padding taps are dropped.
//
// Output positions are walked one output row (fixed depth and height) at a
// time: along a row the input column advances by the stride, so the valid
// part of the row is one strided run of the input (a plain copy for stride
// one) and the rest is padding.
//
// Taps are the outer loop and channels the inner one: consecutive rows then
// touch different channels' planes, so col2im's read-modify-write of one
// tap never waits on the stores of the tap before (which overlap it,
// shifted by the dilation).
func (g *geom3) patches(add bool, col []float32, ldr int, x []float32, xoff int, st [5]int, n, c0, t0, nt int) {
	if t0 == 0 && nt == g.outVol && g.in[0] == 1 && g.k[0] == 1 && g.p[0] == 0 && g.s[2] == 1 && st[4] == 1 && g.rowsApart(st) {
		g.patchesWhole(add, col, ldr, x, xoff+n*st[0]+c0*st[1], st)
		return
	}
	tap := 0
	for kd := 0; kd < g.k[0]; kd++ {
		for kh := 0; kh < g.k[1]; kh++ {
			for kw := 0; kw < g.k[2]; kw++ {
				for ci := 0; ci < g.cg; ci++ {
					r := ci*g.kVol + tap
					base := xoff + n*st[0] + (c0+ci)*st[1]
					g.patchRow(add, col[r*ldr:r*ldr+nt], x, base, st, [3]int{kd, kh, kw}, t0)
				}
				tap++
			}
		}
	}
}

// rowsApart reports whether the rows of an image with strides st lie apart
// in memory: the block copies (vec.CopyBlocks, CopyRows) take an image's
// rows as the rows of a block, which must not overlap. A view expanded
// along the height (stride zero) repeats one row instead; it is read run
// by run.
func (g *geom3) rowsApart(st [5]int) bool { return st[3] >= g.in[2] || g.in[1] == 1 }

// patchesWhole is patches for a whole 2-D image (from x[base], channel
// c0) with stride one along rows: each kernel tap's valid rows and columns
// are one block per channel, all moved by one vec.CopyBlocks (or
// AddBlocks) call.
func (g *geom3) patchesWhole(add bool, col []float32, ldr int, x []float32, base int, st [5]int) {
	oh, ow := g.out[1], g.out[2]
	for tap := 0; tap < g.kVol; tap++ {
		offH, offW := tap/g.k[2]*g.dl[1]-g.p[1], tap%g.k[2]*g.dl[2]-g.p[2]
		rlo, rhi := validRange(oh, g.s[1], offH, g.in[1])
		lo, hi := validRange(ow, 1, offW, g.in[2])
		if !add && (rlo > 0 || rhi < oh || lo > 0 || hi < ow) { // padding: zeros where the copy writes nothing
			for ci := 0; ci < g.cg; ci++ {
				clearBorder(col[(ci*g.kVol+tap)*ldr:][:oh*ow], ow, rlo, rhi, lo, hi)
			}
		}
		if rhi <= rlo || hi <= lo {
			continue
		}
		c := col[tap*ldr+rlo*ow+lo:]
		xs := x[base+(rlo*g.s[1]+offH)*st[3]+lo+offW:]
		if add {
			vec.AddBlocks(xs, g.s[1]*st[3], st[1], c, ow, g.kVol*ldr, g.cg, rhi-rlo, hi-lo)
		} else {
			vec.CopyBlocks(c, ow, g.kVol*ldr, xs, g.s[1]*st[3], st[1], g.cg, rhi-rlo, hi-lo)
		}
	}
}

// clearBorder zeroes the elements of b, rows of ow, outside rows [rlo, rhi)
// and columns [lo, hi) (all of b when either range is empty) rather than
// all of b before the copy fills the inside: a padded 3×3 tap of a 14×14
// image then writes 27 zeros instead of 196.
func clearBorder(b []float32, ow, rlo, rhi, lo, hi int) {
	if rhi <= rlo || hi <= lo {
		clear(b)
		return
	}
	clear(b[:rlo*ow])
	clear(b[rhi*ow:])
	if lo == 0 && hi == ow {
		return
	}
	for r := rlo; r < rhi; r++ {
		row := b[r*ow : (r+1)*ow]
		clear(row[:lo])
		clear(row[hi:])
	}
}

// patchRow handles one row of the patch matrix: kernel tap k of one channel
// whose image starts at base, over len(row) output positions from t0.
func (g *geom3) patchRow(add bool, row []float32, x []float32, base int, st [5]int, k [3]int, t0 int) {
	var off [3]int // input coordinate = o*s + off
	for i := range off {
		off[i] = k[i]*g.dl[i] - g.p[i]
	}
	// The output columns whose input column lies inside the image.
	lo, hi := validRange(g.out[2], g.s[2], off[2], g.in[2])
	contiguous := g.s[2] == 1 && st[4] == 1 // a run of the row is a run of the input
	blocks := g.rowsApart(st)               // whole rows can move as one block
	ow0 := t0 % g.out[2]
	oh := t0 / g.out[2] % g.out[1]
	od := t0 / (g.out[1] * g.out[2])
	for t := 0; t < len(row); {
		if contiguous && blocks && ow0 == 0 && len(row)-t >= g.out[2] {
			// Whole output rows of one depth: a block copy (or add).
			k := min((len(row)-t)/g.out[2], g.out[1]-oh)
			g.patchBlock(add, row[t:t+k*g.out[2]], x, base, st, od*g.s[0]+off[0], oh, k, off, lo, hi)
			t += k * g.out[2]
			if oh += k; oh == g.out[1] {
				oh = 0
				od++
			}
			continue
		}
		run := row[t:min(len(row), t+g.out[2]-ow0)]
		id, ih := od*g.s[0]+off[0], oh*g.s[1]+off[1]
		switch {
		case uint(id) >= uint(g.in[0]) || uint(ih) >= uint(g.in[1]):
			if !add {
				clear(run)
			}
		case contiguous && ow0 >= lo && ow0+len(run) <= hi: // the common case, inline
			q := base + id*st[2] + ih*st[3] + ow0 + off[2]
			if add {
				dst := x[q : q+len(run)]
				for i, v := range run {
					dst[i] += v
				}
			} else {
				copy(run, x[q:q+len(run)])
			}
		default:
			g.patchRun(add, run, x, base+id*st[2]+ih*st[3], st[4], ow0, lo, hi, off[2])
		}
		t += len(run)
		ow0 = 0
		if oh++; oh == g.out[1] {
			oh = 0
			od++
		}
	}
}

// patchBlock handles output rows [oh0, oh0+k) of one depth (input depth
// id) for a stride-one, column-contiguous input: blk holds k whole output
// rows. Rows whose input row is inside the image are one strided block of
// the input, columns [lo, hi); the rest is padding.
func (g *geom3) patchBlock(add bool, blk []float32, x []float32, base int, st [5]int, id, oh0, k int, off [3]int, lo, hi int) {
	ow := g.out[2]
	rlo, rhi := validRange(g.out[1], g.s[1], off[1], g.in[1])
	rlo, rhi = min(max(rlo, oh0), oh0+k), max(min(rhi, oh0+k), oh0)
	if uint(id) >= uint(g.in[0]) || hi <= lo {
		rlo, rhi = oh0, oh0
	}
	if !add {
		clear(blk[:(rlo-oh0)*ow])
		clear(blk[(rhi-oh0)*ow:])
	}
	if rhi == rlo {
		return
	}
	dst := blk[(rlo-oh0)*ow+lo:]
	src := x[base+id*st[2]+(rlo*g.s[1]+off[1])*st[3]+lo+off[2]:]
	lds := g.s[1] * st[3]
	if add {
		vec.AddRows(src, lds, dst, ow, rhi-rlo, hi-lo)
		return
	}
	vec.CopyRows(dst, ow, src, lds, rhi-rlo, hi-lo)
	if lo > 0 || hi < ow {
		for r := 0; r < rhi-rlo; r++ {
			row := blk[(rlo-oh0+r)*ow : (rlo-oh0+r+1)*ow]
			clear(row[:lo])
			clear(row[hi:])
		}
	}
}

// patchRun handles output columns [ow0, ow0+len(run)) of one output row
// whose input row starts at element p of x (column stride sw); columns in
// [lo, hi) are inside the image, at input column ow*s + off.
func (g *geom3) patchRun(add bool, run []float32, x []float32, p, sw, ow0, lo, hi, off int) {
	a, b := max(lo-ow0, 0), max(min(hi-ow0, len(run)), 0)
	if b <= a {
		if !add {
			clear(run)
		}
		return
	}
	if !add {
		clear(run[:a])
		clear(run[b:])
	}
	step := g.s[2] * sw
	q := p + ((ow0+a)*g.s[2]+off)*sw
	in := run[a:b]
	switch {
	case add && step == 1:
		dst := x[q : q+len(in)]
		for i, v := range in {
			dst[i] += v
		}
	case add:
		for _, v := range in {
			x[q] += v
			q += step
		}
	case step == 1:
		copy(in, x[q:q+len(in)])
	default:
		for i := range in {
			in[i] = x[q]
			q += step
		}
	}
}

// validRange returns the output positions [lo, hi) of a dimension of out
// positions whose input coordinate o*s + off lies in [0, in).
func validRange(out, s, off, in int) (lo, hi int) {
	// o*s + off >= 0  <=>  o >= ceil(-off/s); o*s + off <= in-1  <=>  o <= floor((in-1-off)/s).
	lo = 0
	if off < 0 {
		lo = (-off + s - 1) / s
	}
	if in-1-off < 0 {
		return lo, lo
	}
	hi = min(out, (in-1-off)/s+1)
	return min(lo, hi), hi
}
