//go:build !purego

package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"flag"
	"runtime"
	"unsafe"
)

var pfFlag = flag.Bool("gemm.pf", true, "")
var kcFlag = flag.Int("gemm.kc", 256, "")
var ncFlag = flag.Int("gemm.nc", 1024, "")

func TestTuneSweep(t *testing.T) {
	skipUnlessTune(t)
	rng := rand.New(rand.NewPCG(5, 6))
	n := 1024
	a, b, c := randSlice(rng, n*n), randSlice(rng, n*n), make([]float32, n*n)
	im := implAVX512
	im.kc, im.nc = *kcFlag, *ncFlag
	p := &problem{m: n, n: n, k: n, alpha: 1, a: a, lda: n, b: b, ldb: n, c: c, ldc: n}
	ms, ns, ks := superBlocks(p, &im)
	s := &shared{p: p, im: &im, ms: ms, ns: ns, ks: ks, threads: 1, bar: newBarrier(1)}
	s.packA = getBuf(ceilDiv(ms, im.mr) * im.mr * ks).data
	s.packB = getBuf(ceilDiv(ns, im.nr) * im.nr * ks).data
	bs := s.blocks()
	s.pack(&bs[0])
	bl := &bs[0]
	tmp := make([]float32, im.mr*im.nr)
	runtime.LockOSThread()
	sweeps := make([]float64, 100)
	counts := make([]int, 100)
	for round := 0; round < 5; round++ {
		gm := ceilDiv(ceilDiv(bl.rows, im.mr), bl.tm)
		gn := ceilDiv(ceilDiv(bl.cols, im.nr), bl.tn)
		for tt := 0; tt < gm*gn; tt++ {
			tr := tt / gn
			pj0 := tt % gn * bl.tn
			pj1 := min(pj0+bl.tn, ceilDiv(bl.cols, im.nr))
			pi0 := tr * bl.tm
			pi1 := min(pi0+bl.tm, ceilDiv(bl.rows, im.mr))
			for pc := 0; pc < bl.depth; pc += bl.kc {
				kc := min(bl.kc, bl.depth-pc)
				next := pc + kc
				nextKc := min(bl.kc, bl.depth-next)
				perCall := kc / kernelPrefetchSteps
				chunkLines := nextKc * im.nr * 4 / cacheLine
				for pi := pi0; pi < pi1; pi++ {
					t0 := threadCPU()
					off := min((pi-pi0)*perCall, max(chunkLines-perCall, 0)) * cacheLine
					for pj := pj0; pj < pj1; pj++ {
						var pf uintptr
						if nextKc > 0 && *pfFlag {
							pf = uintptr(unsafe.Pointer(&s.packB[pj*im.nr*bl.depth+next*im.nr])) + uintptr(off)
						}
						s.microTile(bl, pi, pj, pc, kc, 1, tmp, pf)
					}
					idx := pi - pi0
					if pc > 0 {
						idx += 50
					}
					sweeps[idx] += threadCPU() - t0
					counts[idx]++
				}
			}
		}
	}
	for i := range sweeps {
		if counts[i] > 0 {
			us := sweeps[i] * 1e6 / float64(counts[i])
			fmt.Printf("sweep %2d: %6.1f us  %.1f GFLOP/s\n", i, us, 2*14*32*float64(bl.tn)*float64(bl.kc)/us/1e3)
		}
	}
	fmt.Println("tm", bl.tm, "tn", bl.tn, "kc", bl.kc)
}
