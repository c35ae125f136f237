// Command neongen writes the arm64 NEON kernels of package vec
// (kernels_arm64.s) and their Go declarations (stubs_arm64.go).
//
// It is a plain text generator run by go generate in the vec package:
//
//	go run ./neongen -dir .
//
// Go's arm64 assembler has no floating-point vector arithmetic, so the
// NEON instructions are WORD directives from cpu/internal/neonasm, each
// commented with its Arm syntax. Every kernel handles the first len&^3
// elements, 16 a loop iteration (four vectors) and then 4; the Go
// wrappers in level_arm64.go do the last len%4 with the scalar
// definitions, so each element's result is what the pure-Go kernel gives.
package main
