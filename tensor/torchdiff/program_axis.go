package torchdiff

// Operations along one axis or over a matrix's triangle: scans, sorting,
// flips, rolls, padding, repetition and GLU. Names are interpreted by
// run_axis.go and replay.py.
var axisOps = []string{
	"cumsum", "cumprod", "sort", "topk", "median", "flip", "roll", "tril", "triu", "pad", "repeat", "glu",
}

// axisStep appends one operation of axisOps on x, or nothing when x's shape
// does not suit the one drawn.
func (g *generator) axisStep(x int) {
	xs := g.vals[x].shape
	r := len(xs)
	if r == 0 {
		return
	}
	op := axisOps[g.rng.IntN(len(axisOps))]
	ax := g.rng.IntN(r)
	out := append([]int(nil), xs...)
	s := Step{Op: op, Args: []int{x}, Ints: []int{ax}}
	switch op {
	case "sort":
		s.Keep = g.rng.IntN(2) == 0 // descending
	case "topk":
		k := 1 + g.rng.IntN(xs[ax])
		s.Ints, s.Keep = []int{ax, k}, g.rng.IntN(2) == 0 // largest
		out[ax] = k
	case "median":
		s.Keep = g.rng.IntN(2) == 0
		out = reducedShape(xs, []int{ax}, s.Keep)
	case "flip":
		s.Ints = g.someAxes(r)
	case "roll":
		s.Ints = []int{ax, g.rng.IntN(7) - 3}
	case "tril", "triu":
		if r < 2 {
			return
		}
		s.Ints = []int{g.rng.IntN(5) - 2}
	case "pad":
		// PyTorch 1.13 reflects and replicates only the last dimension of
		// a 2-D or 3-D tensor here; constant padding takes any.
		mode := g.rng.IntN(3)
		before, after := g.rng.IntN(3), g.rng.IntN(3)
		if mode != 0 && (r < 2 || r > 3 || (mode == 1 && max(before, after) >= xs[r-1])) {
			mode = 0
		}
		out[r-1] += before + after
		s.Ints = []int{before, after, mode}
		s.Floats = []float64{roundScalar(g.rng.Float64()*2 - 1)}
	case "repeat":
		reps := make([]int, r)
		for i := range reps {
			reps[i] = 1
		}
		reps[ax] = 2 + g.rng.IntN(2)
		out[ax] *= reps[ax]
		s.Ints = reps
	case "glu":
		if xs[ax]%2 != 0 {
			return
		}
		out[ax] /= 2
	}
	if numel(out) > maxElements {
		return
	}
	g.add(s, value{shape: out})
}

// someAxes draws a nonempty set of distinct axes of a rank-r value.
func (g *generator) someAxes(r int) []int {
	var axes []int
	for i := range r {
		if g.rng.IntN(2) == 0 {
			axes = append(axes, i)
		}
	}
	if len(axes) == 0 {
		axes = []int{g.rng.IntN(r)}
	}
	return axes
}

// reducedShape is xs reduced over axes, with ones kept in their place when
// keep is set.
func reducedShape(xs, axes []int, keep bool) []int {
	var out []int
	for i, v := range xs {
		if contains(axes, i) {
			if keep {
				out = append(out, 1)
			}
			continue
		}
		out = append(out, v)
	}
	return out
}
