package gemm

import "unsafe"

// uintptrOf returns the address of b's first byte (b is not empty).
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }
