//go:build !purego

package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestTuneSweep(t *testing.T) {
	skipUnlessTune(t)
	rng := rand.New(rand.NewPCG(5, 6))
	im := implAVX512
	kc, nc := 256, 512
	np := nc / 32
	bblk := getBuf(kc * nc).data
	copy(bblk, randSlice(rng, len(bblk)))
	apool := getBuf(1 << 20).data // 4 MiB of A panels
	copy(apool, randSlice(rng, len(apool)))
	npanels := len(apool) / (14 * kc)
	cBig := make([]float32, 1024*1024)
	cSmall := make([]float32, 14*nc)
	for _, mode := range []string{"A-L1 C-small", "A-L3 C-small", "A-L1 C-big", "A-L3 C-big"} {
		var g []float64
		for range 7 {
			sweeps := 64
			g = append(g, cpuRate(2*float64(14*nc*kc*sweeps), 1, func() {
				for sw := 0; sw < sweeps; sw++ {
					ai := 0
					if mode[2] == '3' {
						ai = (sw * 37 % npanels) * 14 * kc
					}
					for pj := 0; pj < np; pj++ {
						if mode[8] == 's' {
							im.kernel(kc, apool[ai:], bblk[pj*kc*32:], cSmall[pj*32:], nc, 1, 1, 0)
						} else {
							row := (sw % 73) * 14
							im.kernel(kc, apool[ai:], bblk[pj*kc*32:], cBig[row*1024+pj*32:], 1024, 1, 1, 0)
						}
					}
				}
			}))
		}
		fmt.Printf("%-14s median %.1f best %.1f\n", mode, median(g), g[len(g)-1])
	}
}
