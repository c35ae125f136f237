package cpu

// patches moves data between an image and its patch matrix. For image n and
// channels [c0, c0+cg), the patch matrix holds, for output positions
// [t0, t0+nt), element (r, t) with r = ci*kVol + kk at col[r*ldr + t*ldt]:
// the input value the kernel tap kk of channel ci sees at output position
// t0+t, or zero in the padding.
//
// With add false it gathers the image (strides st over x, from offset xoff)
// into col (im2col). With add true it adds col back into x (col2im), a
// contiguous [N, C, in...] gradient; padding taps are dropped.
func (g *geom3) patches(add bool, col []float32, ldr, ldt int, x []float32, xoff int, st [5]int, n, c0, t0, nt int) {
	var o0 [3]int
	rem := t0
	for i := 2; i >= 0; i-- {
		o0[i] = rem % g.out[i]
		rem /= g.out[i]
	}
	r := 0
	for ci := 0; ci < g.cg; ci++ {
		base := xoff + n*st[0] + (c0+ci)*st[1]
		for kd := 0; kd < g.k[0]; kd++ {
			for kh := 0; kh < g.k[1]; kh++ {
				for kw := 0; kw < g.k[2]; kw++ {
					g.patchRow(add, col[r*ldr:], ldt, x, base, st, o0, [3]int{kd, kh, kw}, nt)
					r++
				}
			}
		}
	}
}

// patchRow handles one row of the patch matrix: kernel tap k of one channel
// whose image starts at base, over nt output positions from o.
func (g *geom3) patchRow(add bool, row []float32, ldt int, x []float32, base int, st [5]int, o, k [3]int, nt int) {
	var off [3]int // input coordinate = o*s + off
	for i := range off {
		off[i] = k[i]*g.dl[i] - g.p[i]
	}
	for t := 0; t < nt; t++ {
		id, ih, iw := o[0]*g.s[0]+off[0], o[1]*g.s[1]+off[1], o[2]*g.s[2]+off[2]
		inside := uint(id) < uint(g.in[0]) && uint(ih) < uint(g.in[1]) && uint(iw) < uint(g.in[2])
		p := base + id*st[2] + ih*st[3] + iw*st[4]
		switch {
		case add && inside:
			x[p] += row[t*ldt]
		case add:
		case inside:
			row[t*ldt] = x[p]
		default:
			row[t*ldt] = 0
		}
		if o[2]++; o[2] == g.out[2] {
			o[2] = 0
			if o[1]++; o[1] == g.out[1] {
				o[1] = 0
				o[0]++
			}
		}
	}
}
