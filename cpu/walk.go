package cpu

// walk visits positions [lo, hi) of a row-major iteration space dims in runs
// along its innermost dimension, tracking the element index of up to three
// strided views: fn(pos, at, run) gets the first position of a run, each
// view's element index there (off[v] + Σ idx[d]*st[v][d]) and the run's
// length. A rank-0 space has the single position 0. idx is scratch of at
// least len(dims).
func walk(dims []int, st [3][]int, off [3]int, lo, hi int, idx []int, fn func(pos int, at [3]int, run int)) {
	nd := len(dims)
	if lo >= hi {
		return
	}
	if nd == 0 {
		fn(0, off, 1)
		return
	}
	idx = idx[:nd]
	at := off
	rem := lo
	for d := nd - 1; d >= 0; d-- {
		idx[d] = rem % dims[d]
		rem /= dims[d]
		for v := range at {
			if st[v] != nil {
				at[v] += idx[d] * st[v][d]
			}
		}
	}
	inner := dims[nd-1]
	for pos := lo; pos < hi; {
		run := min(inner-idx[nd-1], hi-pos)
		fn(pos, at, run)
		pos += run
		idx[nd-1] += run
		for v := range at {
			if st[v] != nil {
				at[v] += run * st[v][nd-1]
			}
		}
		if idx[nd-1] < inner {
			continue
		}
		idx[nd-1] = 0
		for v := range at {
			if st[v] != nil {
				at[v] -= inner * st[v][nd-1]
			}
		}
		for d := nd - 2; d >= 0; d-- {
			idx[d]++
			for v := range at {
				if st[v] != nil {
					at[v] += st[v][d]
				}
			}
			if idx[d] < dims[d] {
				break
			}
			for v := range at {
				if st[v] != nil {
					at[v] -= dims[d] * st[v][d]
				}
			}
			idx[d] = 0
		}
	}
}
