package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
)

// coeffs holds the float32 constants and coefficient arrays of package
// vec's coeffs.go (the one definition the Go kernels and both generators
// use), by name.
type coeffs struct {
	consts map[string]float32
	arrays map[string][]float32
}

// readCoeffs parses the constants and arrays of a coeffs.go file.
func readCoeffs(path string) (*coeffs, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	c := &coeffs{consts: map[string]float32{}, arrays: map[string][]float32{}}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			vs, ok := s.(*ast.ValueSpec)
			if !ok || len(vs.Values) != len(vs.Names) {
				continue
			}
			for i, name := range vs.Names {
				switch v := vs.Values[i].(type) {
				case *ast.CompositeLit:
					var xs []float32
					for _, e := range v.Elts {
						x, err := number(e)
						if err != nil {
							return nil, fmt.Errorf("%s: %s: %w", path, name.Name, err)
						}
						xs = append(xs, x)
					}
					c.arrays[name.Name] = xs
				default:
					if x, err := number(v); err == nil {
						c.consts[name.Name] = x
					}
				}
			}
		}
	}
	return c, nil
}

// number evaluates a literal, possibly negated, as a float32.
func number(e ast.Expr) (float32, error) {
	neg := false
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		neg, e = true, u.X
	}
	lit, ok := e.(*ast.BasicLit)
	if !ok || (lit.Kind != token.FLOAT && lit.Kind != token.INT) {
		return 0, fmt.Errorf("not a number: %T", e)
	}
	x, err := strconv.ParseFloat(lit.Value, 32)
	if err != nil {
		return 0, err
	}
	if neg {
		x = -x
	}
	return float32(x), nil
}

// get returns a constant, panicking on a name coeffs.go lacks (a bug).
func (c *coeffs) get(name string) float32 {
	x, ok := c.consts[name]
	if !ok {
		panic("neongen: coeffs.go has no constant " + name)
	}
	return x
}
