package neonasm

import (
	"bytes"
	"fmt"
)

// Writer appends tab-indented lines of Go arm64 assembly to a buffer, NEON
// instructions as WORD directives; the generators of the gemm and vec
// kernels share it.
type Writer struct{ S *bytes.Buffer }

// Op writes one assembler line.
func (w Writer) Op(format string, args ...any) { fmt.Fprintf(w.S, "\t"+format+"\n", args...) }

// Neon writes one NEON instruction (Arm syntax) as a WORD.
func (w Writer) Neon(format string, args ...any) {
	w.Op("%s", Word(fmt.Sprintf(format, args...)))
}

// Label writes a label line.
func (w Writer) Label(name string) { fmt.Fprintf(w.S, "%s:\n", name) }
