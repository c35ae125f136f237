package tensor

// compose returns the view that reads, for each position of outer, the
// source element that inner maps it to, where outer is a view onto a
// contiguous array of shape p and inner maps positions of p onto a source.
// It succeeds whenever the composition is itself strided: permutes,
// broadcasts, slices and reshapes that do not merge dimensions the inner view
// keeps apart. The fusion layer inlines a producer into a consumer through
// such compositions and materializes it otherwise.
func compose(outer view, p []int, inner view) (view, bool) {
	if outer.isIdentity(p) {
		return view{shape: outer.shape, strides: inner.strides, offset: inner.offset}, true
	}
	// Merge adjacent dimensions of p that inner walks contiguously, and drop
	// dimensions of size one.
	var ps, cs, ws []int // sizes, contiguous strides of p, inner strides
	acc := 1
	for k := len(p) - 1; k >= 0; k-- {
		if p[k] == 1 {
			continue
		}
		if n := len(ps); n > 0 && ws[n-1]*ps[n-1] == inner.strides[k] {
			ps[n-1] *= p[k]
		} else {
			ps = append(ps, p[k])
			cs = append(cs, acc)
			ws = append(ws, inner.strides[k])
		}
		acc *= p[k]
	}
	// ps, cs, ws are innermost first. Locate outer's offset in p.
	coord := make([]int, len(ps))
	lo := make([]int, len(ps))
	hi := make([]int, len(ps))
	off := inner.offset
	rem := outer.offset
	for j := len(ps) - 1; j >= 0; j-- {
		coord[j] = rem / cs[j]
		rem -= coord[j] * cs[j]
		off += coord[j] * ws[j]
		lo[j], hi[j] = coord[j], coord[j]
	}
	if rem != 0 || (len(ps) > 0 && coord[len(ps)-1] >= ps[len(ps)-1]) {
		return view{}, false
	}
	strides := make([]int, len(outer.shape))
	for i, size := range outer.shape {
		st := outer.strides[i]
		if size == 1 || st == 0 {
			continue
		}
		a := st
		if a < 0 {
			a = -a
		}
		j := -1
		for k := len(ps) - 1; k >= 0; k-- {
			if cs[k] <= a {
				j = k
				break
			}
		}
		if j < 0 || a%cs[j] != 0 {
			return view{}, false
		}
		m := st / cs[j]
		if m > 0 {
			hi[j] += m * (size - 1)
		} else {
			lo[j] += m * (size - 1)
		}
		if lo[j] < 0 || hi[j] >= ps[j] {
			return view{}, false
		}
		strides[i] = m * ws[j]
	}
	return view{shape: outer.shape, strides: strides, offset: off}, true
}
