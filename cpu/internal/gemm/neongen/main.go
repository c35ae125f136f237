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
