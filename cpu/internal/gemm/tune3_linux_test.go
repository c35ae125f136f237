//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestTuneInner(t *testing.T) {
	if !*tuneFlag {
		t.Skip("tuning runs with -gemm.tune")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	mr, nr := 14, 32
	for vi, f := range []func(k int, a, b, c *float32, ldc int, alpha, beta float32){sgemmKernel14x32AVX512, sgemmKernel14x32AVX512NP} {
		for _, kc := range []int{128, 256, 384} {
			for _, np := range []int{16} {
				a := getBuf(np * kc * mr).data
				copy(a, randSlice(rng, len(a)))
				b := getBuf(32 * kc * nr).data
				copy(b, randSlice(rng, len(b)))
				cBig := make([]float32, 1024*1024)
				cSmall := make([]float32, mr*nr)
				reps := 200
				flops := 2 * float64(mr*nr*kc*np*reps)
				l1 := cpuGFLOPS(flops, 5, func() {
					for range reps {
						for i := 0; i < np; i++ {
							f(kc, &a[0], &b[0], &cSmall[0], nr, 1, 1)
						}
					}
				})
				l2a := cpuGFLOPS(flops, 5, func() {
					for range reps {
						for i := 0; i < np; i++ {
							f(kc, &a[i*kc*mr], &b[0], &cSmall[0], nr, 1, 1)
						}
					}
				})
				cc := cpuGFLOPS(flops, 5, func() {
					for r := range reps {
						for i := 0; i < np; i++ {
							f(kc, &a[i*kc*mr], &b[(r%32)*kc*nr], &cBig[(i*mr)*1024+(r%32)*32], 1024, 1, 1)
						}
					}
				})
				bc := cpuGFLOPS(flops, 5, func() {
					for r := range reps {
						for i := 0; i < np; i++ {
							f(kc, &a[i*kc*mr], &b[(r%32)*kc*nr], &cSmall[0], nr, 1, 1)
						}
					}
				})
				bigc := cpuGFLOPS(flops, 5, func() {
					for r := range reps {
						for i := 0; i < np; i++ {
							f(kc, &a[i*kc*mr], &b[0], &cBig[(i*mr)*1024+(r%32)*32], 1024, 1, 1)
						}
					}
				})
				fmt.Printf("Bcycle %.1f bigC %.1f ", bc, bigc)
				fmt.Printf("v%d kc=%d panels=%d: sameA %.1f, A-stream %.1f, A-stream+Bcycle+bigC %.1f\n", vi, kc, np, l1, l2a, cc)
			}
		}
	}
}
