//go:build !purego

package gemm

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The tuning tests measure by the calling thread's CPU time, which time
// stolen by other processes on a shared machine does not inflate, and report
// medians over interleaved rounds. They run only with -gemm.tune.

var tuneFlag = flag.Bool("gemm.tune", false, "run the TestTune* measurements (single-thread, by thread CPU time)")

func skipUnlessTune(t *testing.T) {
	if !*tuneFlag {
		t.Skip("tuning measurements run with -gemm.tune")
	}
	if hwLevel < levelAVX512 {
		t.Skip("tuning targets the AVX-512 level")
	}
}

// threadCPU returns the calling OS thread's CPU time in seconds.
func threadCPU() float64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return float64(ts.Sec) + float64(ts.Nsec)*1e-9
}

// cpuRate runs f once to warm up, then reps times on a locked thread, and
// returns the median of work/seconds/1e9 by thread CPU time.
func cpuRate(work float64, reps int, f func()) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f()
	g := make([]float64, reps)
	for i := range g {
		t0 := threadCPU()
		f()
		g[i] = work / (threadCPU() - t0) / 1e9
	}
	sort.Float64s(g)
	return g[reps/2]
}

// TestTuneKernel compares the micro-kernels on L1-resident panels with the
// FMA peak, measured in alternation.
func TestTuneKernel(t *testing.T) {
	skipUnlessTune(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, l := range []level{levelAVX512, levelAVX2} {
		im := implFor(l)
		loop, perIter := peakLoopFor(l)
		for _, kc := range []int{64, 256, 1024} {
			a, b := randSlice(rng, kc*im.mr), getBuf(kc*im.nr).data
			copy(b, randSlice(rng, len(b)))
			c := make([]float32, im.mr*im.nr)
			reps := 1 << 22 / (kc * im.mr * im.nr / 16)
			var ks, ps []float64
			for range 7 {
				ks = append(ks, cpuRate(2*float64(im.mr*im.nr*kc*reps), 1, func() {
					for range reps {
						im.kernel(kc, a, b, c, im.nr, 1, 1, 0, 0)
					}
				}))
				ps = append(ps, cpuRate(float64(perIter)*1e5, 1, func() { loop(1e5) }))
			}
			k, p := median(ks), median(ps)
			fmt.Printf("%s kernel %dx%d kc=%-4d %6.1f GFLOP/s, peak %6.1f: %3.0f%%\n", l, im.mr, im.nr, kc, k, p, 100*k/p)
		}
	}
}

// TestTunePack measures the packing rate of A (transposing) and B (copying)
// panels of square matrices.
func TestTunePack(t *testing.T) {
	skipUnlessTune(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, l := range []level{levelGo, levelAVX512} {
		im := implFor(l)
		for _, n := range []int{128, 1024} {
			a := randSlice(rng, n*n)
			dst := getBuf(n * n * 2).data
			ga := cpuRate(float64(n*n), 5, func() {
				for i := 0; i < n; i += im.mr {
					im.pack.packAPanel(dst[i*n:], a, n, false, i, min(im.mr, n-i), 0, n, im.mr)
				}
			})
			gb := cpuRate(float64(n*n), 5, func() { im.pack.packBPanels(dst, a, n, false, 0, n, 0, n, im.nr) })
			fmt.Printf("%s pack %d×%d: A %.2f Gelem/s, B %.2f Gelem/s\n", l, n, n, ga, gb)
		}
	}
}

// compareCompute measures the compute phase (packing excluded) of an m×n×k
// product on one thread for every variant, round-robin, and prints the
// median and best GFLOP/s of each.
func compareCompute(m, n, k int, names []string, ims []impl, rounds int) {
	rng := rand.New(rand.NewPCG(5, 6))
	a, b, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float32, m*n)
	ss := make([]*shared, len(ims))
	for i := range ims {
		im := &ims[i]
		p := &problem{m: m, n: n, k: k, alpha: 1, a: a, lda: k, b: b, ldb: n, c: c, ldc: n}
		ms, ns, ks := superBlocks(p, im)
		s := &shared{p: *p, im: im}
		s.packA = getBuf(ceilDiv(ms, im.mr) * im.mr * ks).data
		s.packB = getBuf(ceilDiv(ns, im.nr) * im.nr * ks).data
		s.blocks = planBlocks(nil, p, im, ms, ns, ks, 1, true, true)
		for t := 0; t < s.blocks[0].packTasks; t++ {
			s.pack(&s.blocks[0], t)
		}
		ss[i] = s
	}
	g := make([][]float64, len(ims))
	for range rounds {
		for i, s := range ss {
			b := &s.blocks[0]
			tmp := make([]float32, s.im.mr*s.im.nr)
			g[i] = append(g[i], cpuRate(2*float64(m*n*k), 1, func() {
				for t := 0; t < b.tiles; t++ {
					pi0, pj0 := b.tile(t)
					next := -1
					if t+1 < b.tiles {
						_, next = b.tile(t + 1)
					}
					s.macroTile(b, pi0, pj0, next, tmp)
				}
			}))
		}
	}
	for i := range ims {
		med := median(g[i])
		fmt.Printf("%dx%dx%d %-36s median %6.1f best %6.1f GFLOP/s\n", m, n, k, names[i], med, g[i][len(g[i])-1])
	}
}

// TestTuneCompute compares cache blockings of the AVX-512 level on the
// compute phase.
func TestTuneCompute(t *testing.T) {
	skipUnlessTune(t)
	var names []string
	var ims []impl
	for _, mc := range []int{112, 224} {
		for _, kc := range []int{256, 384} {
			for _, nc := range []int{256, 512} {
				im := implAVX512
				im.kc, im.nc, im.mc = kc, nc, mc
				names = append(names, fmt.Sprintf("kc=%d mc=%d nc=%d", kc, im.mc, im.nc))
				ims = append(ims, im)
			}
		}
	}
	for _, s := range []shape{{1024, 1024, 1024}, {448, 448, 448}, {1024, 448, 448}, {448, 1024, 448}, {448, 448, 1024}} {
		compareCompute(s.m, s.n, s.k, names, ims, 11)
	}
}

// TestTuneEndToEnd measures whole single-thread products (packing included)
// by thread CPU time, alternating with the FMA peak loop.
func TestTuneEndToEnd(t *testing.T) {
	skipUnlessTune(t)
	rng := rand.New(rand.NewPCG(7, 8))
	loop, perIter := peakLoopFor(levelAVX512)
	for _, s := range benchShapes {
		a, b, c := randSlice(rng, s.m*s.k), randSlice(rng, s.k*s.n), make([]float32, s.m*s.n)
		flops := 2 * float64(s.m*s.n*s.k)
		reps := max(1, int(2e8/flops))
		var gs, ps []float64
		for range 9 {
			gs = append(gs, cpuRate(flops*float64(reps), 1, func() {
				for range reps {
					SgemmThreads(1, false, false, s.m, s.n, s.k, 1, a, s.k, b, s.n, 0, c, s.n)
				}
			}))
			ps = append(ps, cpuRate(float64(perIter)*1e5, 1, func() { loop(1e5) }))
		}
		g, p := median(gs), median(ps)
		fmt.Printf("%-20s 1 thread: %6.1f GFLOP/s (best %6.1f), peak %6.1f: %3.0f%%\n", s.name, g, gs[len(gs)-1], p, 100*g/p)
	}
}

// processCPU returns the CPU time of the whole process in seconds.
func processCPU() float64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)*1e-6
}

// TestTuneParallel estimates, on a machine shared with other work, what
// GOMAXPROCS threads would deliver with the cores to themselves: work
// divided by process CPU time per thread (spinning waits count as busy, as
// they would on dedicated cores). Products and the FMA peak loop alternate.
func TestTuneParallel(t *testing.T) {
	skipUnlessTune(t)
	threads := runtime.GOMAXPROCS(0)
	rng := rand.New(rand.NewPCG(9, 10))
	rate := func(work float64, f func()) float64 {
		f()
		t0 := processCPU()
		f()
		return work / ((processCPU() - t0) / float64(threads)) / 1e9
	}
	loop, perIter := peakLoopFor(levelAVX512)
	for _, s := range benchShapes {
		a, b, c := randSlice(rng, s.m*s.k), randSlice(rng, s.k*s.n), make([]float32, s.m*s.n)
		flops := 2 * float64(s.m*s.n*s.k)
		reps := max(1, int(2e9/flops))
		var gs, ps []float64
		for range 7 {
			gs = append(gs, rate(flops*float64(reps), func() {
				for range reps {
					SgemmThreads(threads, false, false, s.m, s.n, s.k, 1, a, s.k, b, s.n, 0, c, s.n)
				}
			}))
			ps = append(ps, rate(float64(perIter)*2e5*float64(threads), func() {
				done := make(chan bool)
				for range threads {
					go func() {
						runtime.LockOSThread()
						loop(2e5)
						runtime.UnlockOSThread()
						done <- true
					}()
				}
				for range threads {
					<-done
				}
			}))
		}
		g, p := median(gs), median(ps)
		fmt.Printf("%-20s %d threads (CPU-time estimate): %6.1f GFLOP/s, peak %6.1f: %3.0f%%\n", s.name, threads, g, p, 100*g/p)
	}
}

// TestTuneBestWall reports the best wall-clock GFLOP/s over many repetitions
// for 1 and GOMAXPROCS threads: on a shared machine the fastest repetitions
// are the ones that had the cores to themselves.
func TestTuneBestWall(t *testing.T) {
	skipUnlessTune(t)
	rng := rand.New(rand.NewPCG(11, 12))
	best := func(reps int, work float64, f func()) float64 {
		f()
		b := 0.0
		for range reps {
			t0 := time.Now()
			f()
			b = max(b, work/time.Since(t0).Seconds()/1e9)
		}
		return b
	}
	loop, perIter := peakLoopFor(levelAVX512)
	for _, th := range []int{1, runtime.GOMAXPROCS(0)} {
		p := best(50, float64(perIter)*5e5*float64(th), func() {
			done := make(chan bool)
			for range th {
				go func() { loop(5e5); done <- true }()
			}
			for range th {
				<-done
			}
		})
		fmt.Printf("peak %d threads: best %6.1f GFLOP/s\n", th, p)
		for _, s := range benchShapes {
			a, b, c := randSlice(rng, s.m*s.k), randSlice(rng, s.k*s.n), make([]float32, s.m*s.n)
			flops := 2 * float64(s.m*s.n*s.k)
			g := best(max(20, int(4e9/flops)), flops, func() {
				SgemmThreads(th, false, false, s.m, s.n, s.k, 1, a, s.k, b, s.n, 0, c, s.n)
			})
			fmt.Printf("%-20s %d threads: best %6.1f GFLOP/s (%3.0f%% of best peak)\n", s.name, th, g, 100*g/p)
		}
	}
}

// TestTuneTrainShapes measures, single-threaded by thread CPU time, the
// products of the reference training steps (nn/train's MLP and CNN) with
// their transposes, alternating with the FMA peak loop.
func TestTuneTrainShapes(t *testing.T) {
	skipUnlessTune(t)
	rng := rand.New(rand.NewPCG(13, 14))
	loop, perIter := peakLoopFor(levelAVX512)
	for _, s := range trainShapes {
		lda, ldb := s.k, s.n
		if s.transA {
			lda = s.m
		}
		if s.transB {
			ldb = s.k
		}
		a, b, c := randSlice(rng, s.m*s.k), randSlice(rng, s.k*s.n), make([]float32, s.m*s.n)
		flops := 2 * float64(s.m*s.n*s.k)
		reps := max(1, int(1e8/flops))
		var gs, ps []float64
		for range 9 {
			gs = append(gs, cpuRate(flops*float64(reps), 1, func() {
				for range reps {
					SgemmThreads(1, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, b, ldb, 0, c, s.n)
				}
			}))
			ps = append(ps, cpuRate(float64(perIter)*1e5, 1, func() { loop(1e5) }))
		}
		g, p := median(gs), median(ps)
		fmt.Printf("%-28s 1 thread: %6.1f GFLOP/s %7.1f µs (best %6.1f), peak %6.1f: %3.0f%%\n", s.name, g, flops/g/1e3, gs[len(gs)-1], p, 100*g/p)
	}
}

// TestTuneInPlace compares, single-threaded by thread CPU time and in
// alternation, products that read A (rowA) or B (colB) in place with the
// same products packing them, on the benchmark and training shapes where
// either applies.
var colBPanelsFlag = flag.Int("gemm.colbpanels", 0, "with TestTuneInPlace: colBMaxAPanels to try (0: the default)")

func TestTuneInPlace(t *testing.T) {
	skipUnlessTune(t)
	defer func() { rowAEnabled, colBEnabled = true, true }()
	rng := rand.New(rand.NewPCG(15, 16))
	shapes := append([]struct {
		name           string
		transA, transB bool
		m, n, k        int
	}{{"bench 64x784x128", false, false, 64, 128, 784}, {"512³", false, false, 512, 512, 512}, {"448³", false, false, 448, 448, 448}, {"1000³", false, false, 1000, 1000, 1000}, {"1000x1000x1000 A^T", true, false, 1000, 1000, 1000}}, trainShapes...)
	if *colBPanelsFlag > 0 {
		defer func(old int) { colBMaxAPanels = old }(colBMaxAPanels)
		colBMaxAPanels = *colBPanelsFlag
	}
	for _, s := range shapes {
		lda, ldb := s.k, s.n
		if s.transA {
			lda = s.m
		}
		if s.transB {
			ldb = s.k
		}
		a, b, c := randSlice(rng, s.m*s.k), randSlice(rng, s.k*s.n), make([]float32, s.m*s.n)
		p := &problem{transA: s.transA, transB: s.transB, m: s.m, n: s.n, k: s.k, lda: lda, ldb: ldb}
		im := implFor(active)
		if !useRowA(p, im) && !useColB(p, im) {
			continue
		}
		flops := 2 * float64(s.m*s.n*s.k)
		reps := max(1, int(5e7/flops))
		var g [3][]float64
		for range 11 {
			for v := range 3 {
				rowAEnabled, colBEnabled = v >= 1, v == 2
				g[v] = append(g[v], cpuRate(flops*float64(reps), 1, func() {
					for range reps {
						sgemm(1, false, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, b, ldb, 0, c, s.n)
					}
				}))
			}
		}
		us := func(v int) float64 { return flops / median(g[v]) / 1e3 }
		fmt.Printf("%-24s 1 thread µs: packed %6.1f, A in place %6.1f, A and B in place %6.1f (%5.1f GFLOP/s)\n",
			s.name, us(0), us(1), us(2), median(g[2]))
	}
}

// TestTuneOrientation compares, single-threaded by thread CPU time and in
// alternation, products computed as they are and transposed through a
// buffer (see orient.go), with the choice transposeWins makes.
func TestTuneOrientation(t *testing.T) {
	skipUnlessTune(t)
	rng := rand.New(rand.NewPCG(17, 18))
	im := implFor(active)
	for _, s := range trainShapes {
		lda, ldb := s.k, s.n
		if s.transA {
			lda = s.m
		}
		if s.transB {
			ldb = s.k
		}
		if s.m*s.n > maxTransposedElems {
			continue
		}
		a, b, c := randSlice(rng, s.m*s.k), randSlice(rng, s.k*s.n), make([]float32, s.m*s.n)
		newP := func() *problem {
			return &problem{transA: s.transA, transB: s.transB, m: s.m, n: s.n, k: s.k, alpha: 1,
				a: a, lda: lda, b: b, ldb: ldb, c: c, ldc: s.n}
		}
		flops := 2 * float64(s.m*s.n*s.k)
		reps := max(1, int(5e7/flops))
		var g [2][]float64
		for range 11 {
			for v := range 2 {
				g[v] = append(g[v], cpuRate(flops*float64(reps), 1, func() {
					for range reps {
						if v == 0 {
							run(newP(), im, 1, false)
						} else {
							runTransposed(newP(), im, 1, false)
						}
					}
				}))
			}
		}
		us := func(v int) float64 { return flops / median(g[v]) / 1e3 }
		fmt.Printf("%-24s 1 thread µs: as is %7.1f, transposed %7.1f; transposeWins %v\n", s.name, us(0), us(1), transposeWins(newP(), im))
	}
}
