// Command asmgen writes the Go assembly micro-kernels of package gemm
// (kernels_amd64.s) and their Go prototypes (kernels_amd64.go).
//
// It is a plain text generator with no dependencies, run by go generate in
// the gemm package:
//
//	go run ./asmgen -dir .
//
// Every kernel computes one MR×NR tile of C = alpha*A*B + beta*C from an
// MR-row panel of packed A (k groups of MR floats) and an NR-column panel of
// packed B (k groups of NR floats). The C tile is held in vector registers
// with vectors along the row (N) dimension; each k step loads NR/W vectors of
// B and broadcasts the MR values of A, one VBROADCASTSS each, feeding
// MR*NR/W independent FMAs.
package main
