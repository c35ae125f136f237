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
