//go:build amd64 && !purego

package gemm

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
)

type variant struct {
	name string
	im   impl
}

// compareCompute measures the compute phase (packing excluded) of an
// m×n×k product on one thread for every variant, round-robin, and prints
// the median GFLOP/s of each.
func compareCompute(m, n, k int, vs []variant, rounds int) {
	rng := rand.New(rand.NewPCG(5, 6))
	a, b, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float32, m*n)
	type state struct {
		s  *shared
		bs []block
		g  []float64
	}
	st := make([]*state, len(vs))
	for i := range vs {
		im := &vs[i].im
		p := &problem{m: m, n: n, k: k, alpha: 1, a: a, lda: k, b: b, ldb: n, c: c, ldc: n}
		ms, ns, ks := superBlocks(p, im)
		s := &shared{p: p, im: im, ms: ms, ns: ns, ks: ks, threads: 1, bar: newBarrier(1)}
		s.packA = getBuf(ceilDiv(ms, im.mr) * im.mr * ks).data
		s.packB = getBuf(ceilDiv(ns, im.nr) * im.nr * ks).data
		bs := s.blocks()
		s.pack(&bs[0])
		st[i] = &state{s: s, bs: bs}
	}
	for range rounds {
		for _, x := range st {
			tmp := make([]float32, x.s.im.mr*x.s.im.nr)
			x.g = append(x.g, cpuGFLOPS(2*float64(m*n*k), 1, func() { x.s.nextTile.Store(0); x.s.compute(&x.bs[0], tmp) }))
		}
	}
	for i, x := range st {
		sort.Float64s(x.g)
		fmt.Printf("%dx%dx%d %-40s median %6.1f  min %6.1f max %6.1f\n", m, n, k, vs[i].name, x.g[len(x.g)/2], x.g[0], x.g[len(x.g)-1])
	}
}

func TestTuneCompute(t *testing.T) {
	if !*tuneFlag {
		t.Skip("tuning runs with -gemm.tune")
	}
	k14 := asmKernel(sgemmKernel14x32AVX512, 14, 32)
	var vs []variant
	for _, kc := range []int{256, 512, 1024} {
		for _, rm := range []bool{false, true} {
			for _, mc := range []int{112, 224} {
				nc := 0
				if rm {
					nc = max(128, 1<<20/(kc*4)/32*32)
				}
				vs = append(vs, variant{fmt.Sprintf("14x32 kc=%d mc=%d nc=%d rowmaj=%v", kc, mc, nc, rm), impl{mr: 14, nr: 32, kernel: k14, kc: kc, mc: mc, nc: nc, rowMajorTiles: rm}})
			}
		}
	}
	compareCompute(1024, 1024, 1024, vs, 11)
}
