package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"path/filepath"
	"strings"

	"github.com/shaderflow/shaderflow/cpu/internal/neonasm"
)

func main() {
	dir := flag.String("dir", ".", "directory to write kernels_arm64.s and stubs_arm64.go into")
	coeffsPath := flag.String("coeffs", "", "package vec's coeffs.go (default: in -dir)")
	flag.Parse()
	if *coeffsPath == "" {
		*coeffsPath = filepath.Join(*dir, "coeffs.go")
	}
	asm, stubs, err := Generate(*coeffsPath)
	if err == nil {
		err = neonasm.WriteFiles(*dir, "kernels_arm64.s", "stubs_arm64.go", asm, stubs)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// Generate returns the assembly file and the Go declarations, with the
// constants of the coeffs.go file at coeffsPath.
func Generate(coeffsPath string) (asm, stubs []byte, err error) {
	c, err := readCoeffs(coeffsPath)
	if err != nil {
		return nil, nil, err
	}
	f := neonasm.NewFiles("vec")
	s, g := &f.Asm, &f.Go
	for _, k := range elementwise {
		k.emit(s, g)
	}
	expKernels(c, s, g)
	logKernel(c, s, g)
	geluTanhKernel(c, s, g)
	erfKernel(c, s, g)
	geluErfKernel(c, s, g)
	geluTanhGradKernel(c, s, g)
	geluErfGradKernel(c, s, g)
	trigKernels(c, s, g)
	for _, r := range reductions {
		r.emit(s, g)
	}
	indexOf(s, g)
	windowKernels(s, g)
	selectKernels(s, g)
	bfloatKernels(s, g)
	halfKernels(s, g)
	widenKernels(s, g)
	repeatKernels(s, g)
	argKernels(s, g)
	return f.Finish()
}

// writer appends tab-indented lines of assembly.
type writer = neonasm.Writer

// kernel writes the Go declaration of the assembly function name to g (its
// doc comment, lines separated by "\n", then //go:noescape) and its header
// to s (the signature as a comment, then the TEXT line with an argument
// frame of frame bytes), and returns the writer of its body. sig is what
// follows the name: the parameters in parentheses and any result.
func kernel(s, g *bytes.Buffer, name, sig string, frame int, doc string) writer {
	fmt.Fprintf(g, "\n// %s\n//\n//go:noescape\nfunc %s%s\n", strings.ReplaceAll(doc, "\n", "\n// "), name, sig)
	fmt.Fprintf(s, "\n// func %s%s\n", name, sig)
	fmt.Fprintf(s, "TEXT ·%s(SB), NOSPLIT, $0-%d\n", name, frame)
	return writer{S: s}
}
