//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestTuneKernel(t *testing.T) {
	if !*tuneFlag {
		t.Skip("tuning runs with -gemm.tune")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	peak := cpuGFLOPS(float64(flopsPerIterAVX512)*1e5, 5, func() { fmaPeakAVX512(1e5) })
	fmt.Printf("peak %.1f\n", peak)
	type kk struct {
		name   string
		mr, nr int
		f      func(k int, a, b, c *float32, ldc int, alpha, beta float32)
	}
	for _, k := range []kk{{"14x32", 14, 32, sgemmKernel14x32AVX512}, {"12x32", 12, 32, sgemmKernel12x32AVX512}, {"8x48", 8, 48, sgemmKernel8x48AVX512}, {"6x64", 6, 64, sgemmKernel6x64AVX512}} {
		for _, kc := range []int{64, 256, 1024} {
			a, b := randSlice(rng, kc*k.mr), randSlice(rng, kc*k.nr)
			bb := getBuf(kc * k.nr).data
			copy(bb, b)
			c := make([]float32, k.mr*k.nr)
			reps := 2000000 / kc
			g := cpuGFLOPS(2*float64(k.mr*k.nr*kc*reps), 5, func() {
				for range reps {
					k.f(kc, &a[0], &bb[0], &c[0], k.nr, 1, 1)
				}
			})
			fmt.Printf("kernel %s kc=%d: %.1f GFLOP/s %.0f%%\n", k.name, kc, g, 100*g/peak)
		}
	}
	// packing speed
	for _, s := range []int{128, 1024} {
		a := randSlice(rng, s*s)
		dst := make([]float32, s*32)
		g := cpuGFLOPS(float64(s*s), 5, func() {
			for i := 0; i+14 <= s; i += 14 {
				avx512Packer.packAPanel(dst, a, s, false, i, 14, 0, s, 14)
			}
		})
		fmt.Printf("packA strided %d: %.2f Gelem/s\n", s, g)
		g = cpuGFLOPS(float64(s*s), 5, func() {
			for j := 0; j+32 <= s; j += 32 {
				avx512Packer.packBPanels(dst, a, s, false, j, 32, 0, s, 32)
			}
		})
		fmt.Printf("packB contig %d: %.2f Gelem/s\n", s, g)
	}
	// phases of a 1024^3 product on one thread
	for _, kc := range []int{128, 256, 384} {
		im := implAVX512
		im.kc = kc
		n := 1024
		a, b, c := randSlice(rng, n*n), randSlice(rng, n*n), make([]float32, n*n)
		p := &problem{m: n, n: n, k: n, alpha: 1, a: a, lda: n, b: b, ldb: n, c: c, ldc: n}
		ms, ns, ks := superBlocks(p, &im)
		s := &shared{p: p, im: &im, ms: ms, ns: ns, ks: ks, threads: 1, bar: newBarrier(1)}
		s.packA = getBuf(ceilDiv(ms, im.mr) * im.mr * ks).data
		s.packB = getBuf(ceilDiv(ns, im.nr) * im.nr * ks).data
		bs := s.blocks()
		tmp := make([]float32, im.mr*im.nr)
		pk := cpuGFLOPS(float64(2*n*n), 3, func() { s.nextPack.Store(0); s.pack(&bs[0]) })
		pe := cpuGFLOPS(float64(flopsPerIterAVX512)*1e5, 3, func() { fmaPeakAVX512(1e5) })
		g := cpuGFLOPS(2*float64(n*n*n), 3, func() { s.nextTile.Store(0); s.compute(&bs[0], tmp) })
		pe2 := cpuGFLOPS(float64(flopsPerIterAVX512)*1e5, 3, func() { fmaPeakAVX512(1e5) })
		fmt.Printf("kc=%d pack %.2f Gelem/s (%.2f ms); compute %.1f GFLOP/s (%.1f ms), peak %.1f / %.1f\n", kc, pk, 2*float64(n*n)/pk/1e6, g, 2*float64(n*n*n)/g/1e6, pe, pe2)
	}
}
