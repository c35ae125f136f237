// Package neonasm encodes the arm64 Advanced SIMD (NEON) floating-point
// instructions that Go's arm64 assembler does not know (FMLA by element,
// FADD, FMUL, FDIV, FMAX, FSQRT, FCVTL and the like) as WORD directives,
// for the generators of the CPU backend's arm64 kernels
// (cpu/internal/gemm/neongen, cpu/internal/vec/neongen).
//
// Instructions are written in the Arm syntax, "fmla v0.4s, v24.4s, v26.s[3]",
// and come out as "WORD $0x4fba1300 // fmla v0.4s, v24.4s, v26.s[3]", so the
// generated assembly reads as the Arm manual writes it. Only float32 (4s),
// float64 (2d) and byte (16b) arrangements of 128-bit registers are known;
// anything else is an error. TestEncodingsMatchLLVM checks every form
// against llvm-mc where it is installed.
package neonasm
