// Command neongen writes the arm64 NEON micro-kernels of package gemm
// (kernels_arm64.s) and their Go prototypes (kernels_arm64.go).
//
// It is a plain text generator run by go generate in the gemm package:
//
//	go run ./neongen -dir .
//
// Go's arm64 assembler has no floating-point vector arithmetic, so the
// NEON instructions are WORD directives from cpu/internal/neonasm, each
// commented with its Arm syntax; loads, stores and control flow are Go
// assembler.
//
// The main kernel computes an 8×12 tile of C = alpha*A*B + beta*C from
// k groups of 8 floats of packed A and 12 floats of packed B. The tile is
// 24 accumulators (v0–v23, three 4-float vectors per row); each k step loads
// two vectors of A (v24, v25) and three of B (v26–v28) with two LD1s and
// issues 24 FMLAs by element, each multiplying a B vector by one lane of A:
// 26 instructions per 24 FMLAs (96 multiply-adds), see docs/arm64.md.
package main

import (
	"flag"
	"log"

	"github.com/shaderflow/shaderflow/cpu/internal/neonasm"
)

func main() {
	dir := flag.String("dir", ".", "directory to write kernels_arm64.s and kernels_arm64.go into")
	flag.Parse()
	asm, proto, err := Generate()
	if err == nil {
		err = neonasm.WriteFiles(*dir, "kernels_arm64.s", "kernels_arm64.go", asm, proto)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// Generate returns the assembly file and the Go prototype file.
func Generate() (asm, proto []byte, err error) {
	f := neonasm.NewFiles("gemm")
	s, g := &f.Asm, &f.Go
	for _, colB := range []bool{false, true} {
		k := kernel{mr: 8, nv: 3, colB: colB}
		for r := k.mr; r >= 1; r-- {
			v := k
			v.rows = r
			v.emit(s)
			v.proto(g)
		}
		k.table(g)
	}
	transpose(s, g)
	peak(s, g)
	return f.Finish()
}

// writer appends tab-indented lines of assembly.
type writer = neonasm.Writer
