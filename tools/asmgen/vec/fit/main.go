// Command fit computes the float32 polynomial coefficients that the vec
// kernels use, as weighted minimax fits, and prints them as Go source for
// ../coeffs.go.
//
// Each problem fits a polynomial Q(u) = c0 + c1 u + ... + cd u^d, with u a
// function of the sample point t, to a target g(t), minimising
// max |w(t) (Q(u(t)) - g(t))| where w converts an error in Q into a relative
// error of the final function. The fit runs Lawson's iteratively reweighted
// least squares (which converges to the minimax solution) on Chebyshev-spaced
// points; the coefficients are then rounded to float32 one at a time, lowest
// degree first, refitting the remaining ones after each rounding.
//
// Usage: go run ./fit
package main

import (
	"fmt"
	"math"
	"os"
)

// problem is one polynomial to fit.
type problem struct {
	name string
	a, b float64                 // interval of t
	deg  int                     // degree of Q
	u    func(t float64) float64 // polynomial variable
	g    func(t float64) float64 // target of Q
	w    func(t float64) float64 // weight: relative error of the final function per unit error of Q
	// c0 when non-zero is the exact constant term; it is printed as a
	// float32 pair hi, lo (hi+lo to 48 bits) ahead of the other coefficients.
	c0 float64
	// split0 asks for the constant term to be split the same way, its value
	// taken from the unrounded fit.
	split0 bool
}

const points = 3000

func main() {
	for _, p := range problems() {
		c, e := fit(p)
		fmt.Printf("// %s: degree %d on [%g, %g], max weighted error %.3g (%.2f ulp)\n", p.name, p.deg, p.a, p.b, e, e/math.Pow(2, -24))
		fmt.Printf("var %s = [...]float32{", p.name)
		for i, v := range c {
			if i > 0 {
				fmt.Print(", ")
			}
			fmt.Print(formatFloat32(v))
		}
		fmt.Println("}")
	}
	for _, t := range tables() {
		printTable(t)
	}
}

// formatFloat32 prints v so that it parses back to the same float32.
func formatFloat32(v float32) string { return fmt.Sprint(v) }

// samples returns Chebyshev-spaced points of [a, b], endpoints included.
func samples(a, b float64) []float64 {
	t := make([]float64, points)
	for i := range t {
		c := -math.Cos(math.Pi * float64(i) / float64(points-1))
		t[i] = a + (b-a)*(c+1)/2
	}
	return t
}

// fit returns the float32 coefficients and the achieved maximum weighted error.
func fit(p problem) ([]float32, float64) {
	ts := samples(p.a, p.b)
	m, n := len(ts), p.deg+1
	us, gs, ws := make([]float64, m), make([]float64, m), make([]float64, m)
	for i, t := range ts {
		us[i], gs[i], ws[i] = p.u(t), p.g(t), p.w(t)
	}
	fixed := make([]float64, 0, n)
	if p.split0 {
		p.c0 = lawson(us, gs, ws, nil, n)[0]
	}
	if p.c0 != 0 {
		fixed = append(fixed, p.c0)
	}
	for k := len(fixed); k < n; k++ {
		free := lawson(us, gs, ws, fixed, n)
		fixed = append(fixed, float64(float32(free[0])))
	}
	var out []float32
	if p.c0 != 0 {
		hi := float32(p.c0)
		out = append(out, hi, float32(p.c0-float64(hi)))
		fixed[0] = float64(hi) + float64(float32(p.c0-float64(hi)))
		fixed = fixed[1:]
	} else {
		out = append(out, float32(fixed[0]))
		fixed = fixed[1:]
	}
	for _, v := range fixed {
		out = append(out, float32(v))
	}
	fixed = nil
	for _, v := range out {
		fixed = append(fixed, float64(v))
	}
	if p.c0 != 0 {
		fixed = append([]float64{fixed[0] + fixed[1]}, fixed[2:]...)
	}
	maxErr := 0.0
	for i := range ts {
		e := math.Abs(ws[i] * (horner(fixed, us[i]) - gs[i]))
		maxErr = math.Max(maxErr, e)
	}
	return out, maxErr
}

// horner evaluates the polynomial c at u.
func horner(c []float64, u float64) float64 {
	s := 0.0
	for i := len(c) - 1; i >= 0; i-- {
		s = s*u + c[i]
	}
	return s
}

// lawson fits the coefficients after the fixed ones (n in all) and returns
// them, minimax in the weighted error.
func lawson(us, gs, ws, fixed []float64, n int) []float64 {
	m, k0 := len(us), len(fixed)
	nf := n - k0
	lambda := make([]float64, m)
	for i := range lambda {
		lambda[i] = 1 / float64(m)
	}
	resid := make([]float64, m)
	for i := range us {
		resid[i] = gs[i] - horner(fixed, us[i])
	}
	var c []float64
	for iter := 0; iter < 400; iter++ {
		a := make([][]float64, m)
		rhs := make([]float64, m)
		for i := range us {
			s := math.Sqrt(lambda[i]) * ws[i]
			row := make([]float64, nf)
			pw := math.Pow(us[i], float64(k0))
			for j := range row {
				row[j] = s * pw
				pw *= us[i]
			}
			a[i] = row
			rhs[i] = s * resid[i]
		}
		c = leastSquares(a, rhs)
		sum := 0.0
		for i := range us {
			pw := math.Pow(us[i], float64(k0))
			q := 0.0
			for j := range c {
				q += c[j] * pw
				pw *= us[i]
			}
			e := math.Abs(ws[i] * (q - resid[i]))
			lambda[i] *= e
			sum += lambda[i]
		}
		if sum == 0 {
			break
		}
		for i := range lambda {
			lambda[i] /= sum
		}
	}
	return c
}

// leastSquares solves min |a x - b| by Householder QR with column scaling.
func leastSquares(a [][]float64, b []float64) []float64 {
	m, n := len(a), len(a[0])
	scale := make([]float64, n)
	for j := 0; j < n; j++ {
		s := 0.0
		for i := 0; i < m; i++ {
			s = math.Max(s, math.Abs(a[i][j]))
		}
		if s == 0 {
			s = 1
		}
		scale[j] = s
		for i := 0; i < m; i++ {
			a[i][j] /= s
		}
	}
	for k := 0; k < n; k++ {
		norm := 0.0
		for i := k; i < m; i++ {
			norm = math.Hypot(norm, a[i][k])
		}
		if a[k][k] > 0 {
			norm = -norm
		}
		v := make([]float64, m)
		for i := k; i < m; i++ {
			v[i] = a[i][k]
		}
		v[k] -= norm
		vv := 0.0
		for i := k; i < m; i++ {
			vv += v[i] * v[i]
		}
		if vv == 0 {
			continue
		}
		for j := k; j < n; j++ {
			d := 0.0
			for i := k; i < m; i++ {
				d += v[i] * a[i][j]
			}
			d = 2 * d / vv
			for i := k; i < m; i++ {
				a[i][j] -= d * v[i]
			}
		}
		d := 0.0
		for i := k; i < m; i++ {
			d += v[i] * b[i]
		}
		d = 2 * d / vv
		for i := k; i < m; i++ {
			b[i] -= d * v[i]
		}
	}
	x := make([]float64, n)
	for k := n - 1; k >= 0; k-- {
		s := b[k]
		for j := k + 1; j < n; j++ {
			s -= a[k][j] * x[j]
		}
		x[k] = s / a[k][k]
	}
	for j := range x {
		x[j] /= scale[j]
	}
	return x
}

func init() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./fit")
		os.Exit(2)
	}
}
