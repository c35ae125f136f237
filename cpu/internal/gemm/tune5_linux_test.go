//go:build amd64 && !purego

package gemm

import (
	"testing"
)

func TestTuneSizes(t *testing.T) {
	if !*tuneFlag {
		t.Skip("tuning runs with -gemm.tune")
	}
	k14 := asmKernel(sgemmKernel14x32AVX512, 14, 32)
	vs := []variant{
		{"col kc=256", impl{mr: 14, nr: 32, kernel: k14, kc: 256, mc: 224, pack: &avx512Packer}},
		{"row kc=256", impl{mr: 14, nr: 32, kernel: k14, kc: 256, mc: 224, pack: &avx512Packer, rowMajorTiles: true, nc: 1024}},
	}
	for _, n := range []int{224, 448, 1024} {
		compareCompute(n, n, n, vs, 9)
	}
}
