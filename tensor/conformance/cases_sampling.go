package conformance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// Eye, Linspace and the sampling ops: RandInt and Bernoulli exactly against
// the Rand numbers of the same generator seed (Rand is exact on every
// backend), Multinomial by its frequencies.

func samplingCases() []testCase {
	var cs []testCase
	for _, s := range [][2]int{{3, 3}, {2, 5}, {4, 1}, {0, 3}} {
		cs = append(cs, testCase{name: caseName("eye", fmt.Sprintf("%dx%d", s[0], s[1])), run: func(e *env) {
			want := ref.Map2("Eye", ref.Arange(0, float64(s[0]), 1).Reshape(s[0], 1), ref.Arange(0, float64(s[1]), 1).Reshape(1, s[1]),
				func(i, j float64) float64 { return b2f(i == j) })
			e.expect("Eye", tensor.Float32, want, exact, func() *tensor.Tensor { return tensor.Eye(e.dev, s[0], s[1]) })
		}})
	}
	for _, l := range []struct {
		start, end float64
		steps      int
	}{{0, 1, 11}, {-3, 5.5, 10}, {1, -1, 7}, {2.5, 7, 1}, {0.1, 100, 1001}} {
		cs = append(cs, testCase{name: caseName("linspace", fmt.Sprintf("%g,%g,%d", l.start, l.end, l.steps)), run: func(e *env) {
			vals := make([]float64, l.steps)
			for i := range vals {
				vals[i] = l.start + float64(i)*(l.end-l.start)/float64(max(l.steps-1, 1))
			}
			t := tol{rel: 1e-6, abs: 1e-6 * math.Abs(l.end-l.start)}
			e.expect("Linspace", tensor.Float32, ref.New(vals, l.steps), t, func() *tensor.Tensor { return tensor.Linspace(e.dev, l.start, l.end, l.steps) })
		}})
	}
	for _, r := range [][2]int{{0, 10}, {-5, 3}, {7, 8}, {math.MinInt32, math.MinInt32 + 1<<24}, {math.MaxInt32 - 1000, math.MaxInt32}} {
		cs = append(cs, testCase{name: caseName("randint", fmt.Sprintf("%d,%d", r[0], r[1])), run: func(e *env) {
			seed := e.rng.Uint64()
			u := e.read(tensor.NewGenerator(seed).Rand(e.dev, 37, 29))
			want := ref.Map(ref.New(u, 37, 29), func(v float64) float64 {
				return float64(r[0]) + math.Mod(math.Floor(v*(1<<24)), float64(r[1]-r[0]))
			})
			e.expect("RandInt", tensor.Int32, want, exact, func() *tensor.Tensor { return tensor.NewGenerator(seed).RandInt(e.dev, r[0], r[1], 37, 29) })
		}})
	}
	cs = append(cs, testCase{name: "bernoulli", run: func(e *env) {
		p := e.input(tensor.Float32, func(r *rand.Rand) float64 {
			switch r.IntN(6) {
			case 0:
				return 0
			case 1:
				return 1
			}
			return r.Float64()
		}, transposed, 41, 23)
		seed := e.rng.Uint64()
		u := e.read(tensor.NewGenerator(seed).Rand(e.dev, 41, 23))
		want := ref.Map2("Bernoulli", ref.New(u, 41, 23), p.R, func(u, p float64) float64 { return b2f(u < p) })
		e.expect("Bernoulli", tensor.Float32, want, exact, func() *tensor.Tensor { return tensor.NewGenerator(seed).Bernoulli(p.T) })
	}})
	for _, replacement := range []bool{true, false} {
		cs = append(cs, testCase{name: caseName("multinomial", fmt.Sprint("replacement=", replacement)), run: func(e *env) {
			checkMultinomial(e, replacement)
		}})
	}
	return cs
}

// checkMultinomial draws from weights with zeros (rows of one distribution,
// repeated) and checks the range, that zero weights are never drawn, that
// draws without replacement are distinct, that one seed repeats, and that
// the first sample's frequencies match the weights within six standard
// errors.
func checkMultinomial(e *env, replacement bool) {
	weights := []float64{0.5, 0, 2, 1, 0, 0.25, 3, 0.25}
	const rows, n = 2048, 4
	k := len(weights)
	vals := make([]float64, 0, rows*k)
	for range rows {
		vals = append(vals, weights...)
	}
	probs := e.upload(tensor.Float32, vals, rows, k)
	seed := e.rng.Uint64()
	draw := func() []float64 { return e.read(tensor.NewGenerator(seed).Multinomial(probs, n, replacement)) }
	got := draw()
	if !slices.Equal(got, draw()) {
		e.errorf("Multinomial: one generator seed gave different draws")
	}
	if len(got) != rows*n {
		e.fatalf("Multinomial: %d values, want %d", len(got), rows*n)
	}
	counts := make([]float64, k)
	for r := range rows {
		row := got[r*n : (r+1)*n]
		for _, v := range row {
			if v < 0 || v >= float64(k) || weights[int(v)] == 0 {
				e.fatalf("Multinomial: row %d drew %v", r, row)
			}
		}
		if !replacement {
			s := slices.Clone(row)
			slices.Sort(s)
			if len(slices.Compact(s)) != n {
				e.fatalf("Multinomial without replacement: row %d repeats a category: %v", r, row)
			}
		}
		counts[int(row[0])]++
	}
	total := 0.0
	for _, w := range weights {
		total += w
	}
	for c, w := range weights {
		p := w / total
		if se := math.Sqrt(p * (1 - p) / rows); math.Abs(counts[c]/rows-p) > 6*se+1e-12 {
			e.errorf("Multinomial: category %d first drawn %.4f of the time, want %.4f ± %.4f", c, counts[c]/rows, p, 6*se)
		}
	}
}
