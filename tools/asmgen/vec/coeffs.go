package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
)

// coeffs holds the polynomial tables and constants of cpu/internal/vec's
// coeffs.go, which is the single source of truth for both the pure-Go and
// the generated kernels.
type coeffs struct {
	tables map[string][]float32
	consts map[string]float32
}

// poly returns the named table; it panics if it is missing.
func (c *coeffs) poly(name string) []float32 {
	t, ok := c.tables[name]
	if !ok {
		panic("asmgen: no coefficient table " + name)
	}
	return t
}

// k returns the named constant; it panics if it is missing.
func (c *coeffs) k(name string) float32 {
	v, ok := c.consts[name]
	if !ok {
		panic("asmgen: no constant " + name)
	}
	return v
}

// readCoeffs type-checks the file and collects its float32 array variables
// and its constants.
func readCoeffs(path string) (*coeffs, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, err
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.Default()}
	if _, err := conf.Check("vec", fset, []*ast.File{f}, info); err != nil {
		return nil, fmt.Errorf("asmgen: %s: %w", path, err)
	}
	c := &coeffs{tables: map[string][]float32{}, consts: map[string]float32{}}
	for id, obj := range info.Defs {
		if k, ok := obj.(*types.Const); ok {
			v, _ := constant.Float32Val(constant.ToFloat(k.Val()))
			c.consts[id.Name] = v
		}
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.CompositeLit)
				if !ok {
					continue
				}
				var t []float32
				for _, e := range lit.Elts {
					tv := info.Types[e]
					if tv.Value == nil {
						return nil, fmt.Errorf("asmgen: %s: non-constant element in %s", path, name.Name)
					}
					v, _ := constant.Float32Val(constant.ToFloat(tv.Value))
					t = append(t, v)
				}
				c.tables[name.Name] = t
			}
		}
	}
	return c, nil
}
