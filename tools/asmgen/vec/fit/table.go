package main

import (
	"fmt"
	"math"
	"strings"
)

// table is a piecewise polynomial: one fit per interval, printed as one
// flat array, coefficient-major (all intervals' first coefficient, then all
// intervals' second, ...) so that a kernel can look each coefficient up
// with one permute across a table held in vector registers.
type table struct {
	name  string
	about string    // what the table approximates, for the comment
	parts []problem // one problem per interval, all of one degree, split0
}

// phi is the standard normal distribution function.
func phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// tables lists the piecewise fits.
func tables() []table {
	// geluPhi: Phi(x) on [-4, 4) in 32 intervals of width 1/4; interval j
	// holds x = (j - 15.5 + v)/4, v in [-1/2, 1/2] (widened a little: the
	// kernels' index and v are computed with one rounding each).
	t := table{name: "geluPhi", about: "Phi(x) = c(v), x = (j - 15.5 + v)/4, |x| < 4, j = 0..31, degree 6 in v, constant term split"}
	for j := 0; j < 32; j++ {
		cj := float64(j) - 15.5
		t.parts = append(t.parts, problem{
			name: fmt.Sprintf("geluPhi[%d]", j), a: -0.5 - 1e-4, b: 0.5 + 1e-4, deg: 6, split0: true,
			u: func(v float64) float64 { return v },
			g: func(v float64) float64 { return phi((cj + v) / 4) },
			w: func(v float64) float64 { return 1 / phi((cj+v)/4) },
		})
	}
	return []table{t}
}

// printTable fits every interval of t and prints the flat array.
func printTable(t table) {
	var cs [][]float32
	worst := 0.0
	for _, p := range t.parts {
		c, e := fit(p)
		cs = append(cs, c)
		worst = math.Max(worst, e)
	}
	fmt.Printf("// %s: %s; max weighted error %.3g (%.2f ulp)\n", t.name, t.about, worst, worst/math.Pow(2, -24))
	var b strings.Builder
	for k := range cs[0] {
		for j := range cs {
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			b.WriteString(formatFloat32(cs[j][k]))
		}
	}
	fmt.Printf("var %s = [...]float32{%s}\n", t.name, b.String())
}
