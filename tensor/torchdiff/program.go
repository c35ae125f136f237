package torchdiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Step is one operation of a Program. Its result is the value numbered by its
// position in Program.Steps; Args name earlier values, and Ints and Floats
// are the operation's parameters (axes, sizes, bounds, scalars).
type Step struct {
	Op     string    `json:"op"`
	Args   []int     `json:"args,omitempty"`
	Ints   []int     `json:"ints,omitempty"`
	Floats []float64 `json:"floats,omitempty"`
	Keep   bool      `json:"keep,omitempty"` // keepdim of a reduction
}

// Input is one float32 leaf of a Program, with its row-major data.
type Input struct {
	Shape []int     `json:"shape"`
	Data  []float32 `json:"-"`
	B64   string    `json:"data"` // Data as little-endian float32 bytes, base64
}

// Program is a random chain of operations over a few inputs. Its output is
// the last step's value, which is always float32; the loss whose gradient
// is compared is the sum of the output times Weights.
type Program struct {
	Seed       uint64    `json:"seed"`
	Inputs     []Input   `json:"inputs"`
	Steps      []Step    `json:"steps"`
	Weights    []float32 `json:"-"`
	WeightsB64 string    `json:"weights"`
	// Precision is the largest relative rounding step of the program's
	// storage types: float32's unless the chain rounds through float16 or
	// bfloat16.
	Precision float64 `json:"-"`
}

// String lists the program one step a line, with each value's shape.
func (p *Program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "program %d:\n", p.Seed)
	for i, s := range p.Steps {
		fmt.Fprintf(&b, "  v%d = %s", i, s.Op)
		if s.Op == "input" {
			fmt.Fprintf(&b, " #%d shape %v", s.Ints[0], p.Inputs[s.Ints[0]].Shape)
		}
		for _, a := range s.Args {
			fmt.Fprintf(&b, " v%d", a)
		}
		if len(s.Ints) > 0 && s.Op != "input" {
			fmt.Fprintf(&b, " ints=%v", s.Ints)
		}
		if len(s.Floats) > 0 {
			fmt.Fprintf(&b, " floats=%v", s.Floats)
		}
		if s.Keep {
			b.WriteString(" keepdim")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// value is what the generator knows of a step's result.
type value struct {
	shape []int
	bool  bool
}

// generator builds one Program.
type generator struct {
	rng  *rand.Rand
	p    *Program
	vals []value
}

// maxElements bounds every value so that a program stays small.
const maxElements = 384

// Generate returns the program of seed: the same seed always gives the same
// program.
func Generate(seed uint64) *Program {
	g := &generator{rng: rand.New(rand.NewPCG(seed, 0x7f4a7c159e3779b9)), p: &Program{Seed: seed, Precision: 0x1p-24}}
	g.newInput(g.randShape())
	if g.rng.IntN(2) == 0 {
		g.newInput(g.randShape())
	}
	n := 2 + g.rng.IntN(7)
	for len(g.p.Steps) < 64 && g.opCount() < n {
		g.step()
	}
	if last := len(g.vals) - 1; g.vals[last].bool {
		g.where(last)
	}
	out := g.vals[len(g.vals)-1].shape
	g.p.Weights = make([]float32, numel(out))
	for i := range g.p.Weights {
		g.p.Weights[i] = float32(g.rng.Float64()*2 - 0.5)
	}
	g.p.WeightsB64 = encodeFloat32s(g.p.Weights)
	return g.p
}

// opCount is the number of steps that are not inputs.
func (g *generator) opCount() int {
	n := 0
	for _, s := range g.p.Steps {
		if s.Op != "input" {
			n++
		}
	}
	return n
}

// add appends a step and its value and returns the value's number.
func (g *generator) add(s Step, v value) int {
	g.p.Steps = append(g.p.Steps, s)
	g.vals = append(g.vals, v)
	return len(g.vals) - 1
}

// randShape draws a shape of rank 1 to 4 with dimensions 1 to 5.
func (g *generator) randShape() []int {
	for {
		r := 1 + g.rng.IntN(4)
		s := make([]int, r)
		for i := range s {
			s[i] = 1 + g.rng.IntN(5)
			if g.rng.IntN(4) == 0 {
				s[i] = 1
			}
		}
		if n := numel(s); n <= maxElements/2 && n > 1 {
			return s
		}
	}
}

// newInput adds an input of shape whose elements lie in ±[0.2, 2], away from
// zero where Abs, Relu and Sign have their kinks.
func (g *generator) newInput(shape []int) int {
	data := make([]float32, numel(shape))
	for i := range data {
		v := 0.2 + 1.8*g.rng.Float64()
		if g.rng.IntN(2) == 0 {
			v = -v
		}
		data[i] = float32(v)
	}
	k := len(g.p.Inputs)
	g.p.Inputs = append(g.p.Inputs, Input{Shape: append([]int{}, shape...), Data: data, B64: encodeFloat32s(data)})
	return g.add(Step{Op: "input", Ints: []int{k}}, value{shape: append([]int(nil), shape...)})
}

// pick returns a value of the wanted kind, preferring the latest one, or -1.
func (g *generator) pick(wantBool bool) int {
	last := len(g.vals) - 1
	if g.vals[last].bool == wantBool && g.rng.IntN(3) != 0 {
		return last
	}
	var c []int
	for i, v := range g.vals {
		if v.bool == wantBool {
			c = append(c, i)
		}
	}
	if len(c) == 0 {
		return -1
	}
	return c[g.rng.IntN(len(c))]
}

// partner returns a float value whose shape broadcasts with shape: an
// existing one when there is such, else a new input of a shape made from
// shape by setting some dimensions to one or dropping leading ones.
func (g *generator) partner(shape []int) int {
	if g.rng.IntN(3) == 0 {
		var c []int
		for i, v := range g.vals {
			if b, ok := broadcast(v.shape, shape); !v.bool && ok && numel(b) <= maxElements {
				c = append(c, i)
			}
		}
		if len(c) > 0 {
			return c[g.rng.IntN(len(c))]
		}
	}
	s := append([]int(nil), shape...)
	for i := range s {
		if g.rng.IntN(4) == 0 {
			s[i] = 1
		}
	}
	if len(s) > 0 && g.rng.IntN(4) == 0 {
		s = s[1+g.rng.IntN(len(s)):]
	}
	if len(s) == len(shape) && len(s) < 4 && numel(shape)*3 <= maxElements && g.rng.IntN(6) == 0 {
		s = append([]int{2 + g.rng.IntN(2)}, s...)
	}
	return g.newInput(s)
}

// Operation names by family. The same names are interpreted by run.go and
// replay.py.
var (
	unaryOps = []string{
		"neg", "abs", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sigmoid", "tanh", "relu",
		"sin", "cos", "erf", "gelu", "silu", "square", "logabs", "sqrtabs",
		"expm1", "log1pabs", "atan", "leakyrelu",
		"sinh", "cosh", "tan", "asin", "acos", "log2abs", "log10abs",
		"round", "trunc", "floor", "ceil", "sign",
		"softplus", "elu", "selu", "hardswish", "hardsigmoid", "mish", "clampmin", "clampmax",
		"addscalar", "mulscalar", "rsubscalar", "divscalar", "powscalar", "clamp",
		"half", "bfloat",
	}
	binaryOps  = []string{"add", "sub", "mul", "div", "maximum", "minimum", "pow", "atan2", "remainder", "fmod", "lerp"}
	compareOps = []string{"gt", "lt", "ge", "le", "ne"}
	reduceOps  = []string{"sum", "mean", "max", "min", "var", "std", "logsumexp", "prod", "norm1", "norm2", "norminf"}
)

// step appends one random operation over existing values.
func (g *generator) step() {
	// Bool values are consumed by Where, logical operations or a cast.
	if b := g.pick(true); b >= 0 && g.rng.IntN(2) == 0 {
		g.boolStep(b)
		return
	}
	x := g.pick(false)
	xs := g.vals[x].shape
	switch r := g.rng.IntN(100); {
	case r < 30:
		g.unary(x)
	case r < 48:
		op := binaryOps[g.rng.IntN(len(binaryOps))]
		y := g.partner(xs)
		a, b := x, y
		if g.rng.IntN(2) == 0 {
			a, b = y, x
		}
		s, _ := broadcast(g.vals[a].shape, g.vals[b].shape)
		st := Step{Op: op, Args: []int{a, b}}
		if op == "lerp" {
			st.Floats = []float64{roundScalar(g.rng.Float64()*1.5 - 0.25)}
		}
		g.add(st, value{shape: s})
	case r < 55:
		op := compareOps[g.rng.IntN(len(compareOps))]
		y := g.partner(xs)
		s, _ := broadcast(xs, g.vals[y].shape)
		g.add(Step{Op: op, Args: []int{x, y}}, value{shape: s, bool: true})
	case r < 70:
		g.view(x)
	case r < 77:
		g.axisStep(x)
	case r < 85:
		g.reduce(x)
	case r < 90:
		if len(xs) > 0 {
			ax := g.rng.IntN(len(xs))
			op := "softmax"
			if g.rng.IntN(2) == 0 {
				op = "logsoftmax"
			}
			g.add(Step{Op: op, Args: []int{x}, Ints: []int{ax}}, value{shape: xs})
		}
	default:
		g.matmul(x)
	}
}

// unary appends an elementwise operation of one float value.
func (g *generator) unary(x int) {
	op := unaryOps[g.rng.IntN(len(unaryOps))]
	s := Step{Op: op, Args: []int{x}}
	switch op {
	case "addscalar", "mulscalar", "rsubscalar":
		s.Floats = []float64{roundScalar(g.rng.Float64()*4 - 2)}
	case "divscalar":
		s.Floats = []float64{roundScalar(0.5 + g.rng.Float64()*2)}
	case "powscalar":
		s.Floats = []float64{[]float64{2, 3, 0.5, -1, 1.5, -0.5}[g.rng.IntN(6)]}
	case "clampmin", "clampmax":
		s.Floats = []float64{roundScalar(g.rng.Float64()*2 - 1)}
	case "clamp":
		lo := roundScalar(g.rng.Float64()*2 - 1.5)
		s.Floats = []float64{lo, roundScalar(lo + 0.25 + g.rng.Float64()*2)}
	case "half":
		g.p.Precision = math.Max(g.p.Precision, 0x1p-11)
	case "bfloat":
		g.p.Precision = math.Max(g.p.Precision, 0x1p-8)
	}
	g.add(s, value{shape: g.vals[x].shape})
}

// boolStep consumes a bool value.
func (g *generator) boolStep(b int) {
	bs := g.vals[b].shape
	switch g.rng.IntN(5) {
	case 0:
		g.add(Step{Op: "tofloat", Args: []int{b}}, value{shape: bs})
	case 1:
		c := g.pick(true)
		if s, ok := broadcast(bs, g.vals[c].shape); ok && numel(s) <= maxElements {
			op := "and"
			if g.rng.IntN(2) == 0 {
				op = "or"
			}
			g.add(Step{Op: op, Args: []int{b, c}}, value{shape: s, bool: true})
			return
		}
		g.add(Step{Op: "not", Args: []int{b}}, value{shape: bs, bool: true})
	default:
		g.where(b)
	}
}

// where appends Where(b, x, y) with x and y float values that broadcast with
// b, or b cast to float when the broadcast shape would be too large.
func (g *generator) where(b int) {
	bs := g.vals[b].shape
	x := g.partner(bs)
	s, _ := broadcast(bs, g.vals[x].shape)
	y := g.partner(s)
	s, ok := broadcast(s, g.vals[y].shape)
	if !ok || numel(s) > maxElements {
		g.add(Step{Op: "tofloat", Args: []int{b}}, value{shape: bs})
		return
	}
	g.add(Step{Op: "where", Args: []int{b, x, y}}, value{shape: s})
}

// view appends a view or reshape of x.
func (g *generator) view(x int) {
	xs := g.vals[x].shape
	r := len(xs)
	out := append([]int(nil), xs...)
	s := Step{Args: []int{x}}
	switch k := g.rng.IntN(9); {
	case k == 0 && r >= 2:
		a, b := g.rng.IntN(r), g.rng.IntN(r)
		s.Op, s.Ints = "transpose", []int{a, b}
		out[a], out[b] = xs[b], xs[a]
	case k == 1 && r >= 2:
		perm := g.rng.Perm(r)
		s.Op, s.Ints = "permute", perm
		for i, p := range perm {
			out[i] = xs[p]
		}
	case k == 2 && r >= 1:
		d := g.rng.IntN(r)
		start := g.rng.IntN(xs[d])
		end := start + 1 + g.rng.IntN(xs[d]-start)
		step := 1 + g.rng.IntN(2)
		s.Op, s.Ints = "slice", []int{d, start, end, step}
		out[d] = (end - start + step - 1) / step
	case k == 3 && r >= 1:
		d := g.rng.IntN(r)
		start := g.rng.IntN(xs[d])
		n := 1 + g.rng.IntN(xs[d]-start)
		s.Op, s.Ints = "narrow", []int{d, start, n}
		out[d] = n
	case k == 4:
		for i := range out {
			if out[i] == 1 && g.rng.IntN(2) == 0 {
				out[i] = 2 + g.rng.IntN(2)
			}
		}
		if r < 4 && g.rng.IntN(3) == 0 {
			out = append([]int{2}, out...)
		}
		if numel(out) > maxElements {
			return
		}
		s.Op, s.Ints = "expand", out
	case k == 5:
		out = g.factor(numel(xs))
		s.Op, s.Ints = "reshape", out
	case k == 6 && r < 4:
		d := g.rng.IntN(r + 1)
		s.Op, s.Ints = "unsqueeze", []int{d}
		out = append(out[:d:d], append([]int{1}, xs[d:]...)...)
	case k == 7 && r >= 2:
		a := g.rng.IntN(r - 1)
		b := a + 1 + g.rng.IntN(r-1-a)
		s.Op, s.Ints = "flatten", []int{a, b}
		m := 1
		for _, v := range xs[a : b+1] {
			m *= v
		}
		out = append(append(append([]int(nil), xs[:a]...), m), xs[b+1:]...)
	case k == 8:
		var ones []int
		for i, v := range xs {
			if v == 1 {
				ones = append(ones, i)
			}
		}
		if len(ones) == 0 {
			s.Op = "contiguous"
			break
		}
		d := ones[g.rng.IntN(len(ones))]
		s.Op, s.Ints = "squeeze", []int{d}
		out = append(out[:d:d], xs[d+1:]...)
	default:
		return
	}
	g.add(s, value{shape: out})
}

// factor draws a shape of n elements with rank 1 to 4.
func (g *generator) factor(n int) []int {
	var s []int
	rest := n
	for len(s) < 3 && rest > 1 && g.rng.IntN(3) != 0 {
		var divs []int
		for d := 2; d <= rest; d++ {
			if rest%d == 0 {
				divs = append(divs, d)
			}
		}
		d := divs[g.rng.IntN(len(divs))]
		s = append(s, d)
		rest /= d
	}
	s = append(s, rest)
	g.rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

// reduce appends a reduction of x over random axes.
func (g *generator) reduce(x int) {
	xs := g.vals[x].shape
	op := reduceOps[g.rng.IntN(len(reduceOps))]
	var axes []int
	for i := range xs {
		if g.rng.IntN(2) == 0 {
			axes = append(axes, i)
		}
	}
	if len(axes) == 0 && len(xs) > 0 {
		axes = []int{g.rng.IntN(len(xs))}
	}
	if op == "var" || op == "std" {
		// The variance of one element with correction 1 is 0/0.
		n := 1
		for _, a := range axes {
			n *= xs[a]
		}
		if n < 2 {
			op = "sum"
		}
	}
	s := Step{Op: op, Args: []int{x}, Ints: axes, Keep: g.rng.IntN(2) == 0}
	if op == "var" || op == "std" {
		s.Floats = []float64{float64(g.rng.IntN(2))}
	}
	g.add(s, value{shape: reducedShape(xs, axes, s.Keep)})
}

// matmul appends a matrix product of x with a new input, x on either side.
func (g *generator) matmul(x int) {
	xs := g.vals[x].shape
	r := len(xs)
	if r == 0 {
		return
	}
	n := 1 + g.rng.IntN(4)
	var batch []int
	if r <= 2 && g.rng.IntN(3) == 0 {
		batch = []int{1 + g.rng.IntN(3)}
	}
	if g.rng.IntN(2) == 0 {
		// x @ w: w is [batch..., k, n] or, sometimes, the vector [k].
		k := xs[r-1]
		var ws []int
		if g.rng.IntN(5) == 0 {
			ws = []int{k}
		} else {
			ws = append(append([]int(nil), batch...), k, n)
		}
		out, ok := matmulShape(xs, ws)
		if !ok || numel(out) > maxElements {
			return
		}
		w := g.newInput(ws)
		g.add(Step{Op: "matmul", Args: []int{x, w}}, value{shape: out})
		return
	}
	// w @ x: x's contracted dimension is its second to last, or its only one.
	k := xs[0]
	if r >= 2 {
		k = xs[r-2]
	}
	ws := append(append([]int(nil), batch...), n, k)
	out, ok := matmulShape(ws, xs)
	if !ok || numel(out) > maxElements {
		return
	}
	w := g.newInput(ws)
	g.add(Step{Op: "matmul", Args: []int{w, x}}, value{shape: out})
}

// matmulShape is torch.matmul's result shape.
func matmulShape(a, b []int) ([]int, bool) {
	if len(a) == 0 || len(b) == 0 {
		return nil, false
	}
	a1, b1 := len(a) == 1, len(b) == 1
	if a1 {
		a = []int{1, a[0]}
	}
	if b1 {
		b = []int{b[0], 1}
	}
	if a[len(a)-1] != b[len(b)-2] {
		return nil, false
	}
	batch, ok := broadcast(a[:len(a)-2], b[:len(b)-2])
	if !ok {
		return nil, false
	}
	out := append([]int(nil), batch...)
	if !a1 {
		out = append(out, a[len(a)-2])
	}
	if !b1 {
		out = append(out, b[len(b)-1])
	}
	return out, true
}

// broadcast is NumPy's broadcast of two shapes.
func broadcast(a, b []int) ([]int, bool) {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := 0; i < n; i++ {
		x, y := 1, 1
		if j := len(a) - n + i; j >= 0 {
			x = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			y = b[j]
		}
		switch {
		case x == y, y == 1:
			out[i] = x
		case x == 1:
			out[i] = y
		default:
			return nil, false
		}
	}
	return out, true
}

// numel is the number of elements of shape.
func numel(shape []int) int {
	n := 1
	for _, v := range shape {
		n *= v
	}
	return n
}

// contains reports whether xs holds v.
func contains(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// roundScalar rounds a scalar to a multiple of 1/8, exact in every float
// type, so that both sides see the same constant.
func roundScalar(v float64) float64 {
	return math.Round(v*8) / 8
}
