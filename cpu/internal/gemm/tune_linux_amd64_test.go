//go:build !purego

package gemm

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
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
	ldc := n + *ldcPadFlag
	a, b, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float32, m*ldc)
	ss := make([]*shared, len(ims))
	for i := range ims {
		im := &ims[i]
		p := &problem{m: m, n: n, k: k, alpha: 1, a: a, lda: k, b: b, ldb: n, c: c, ldc: ldc}
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

// Options of TestTuneCompute: the blockings to compare ("kc,mc,nc" separated
// by semicolons), the rounds, and whether to measure 1024³ only.
var (
	blockingsFlag  = flag.String("gemm.blockings", "256,112,512;256,224,512;384,112,512;512,112,256;512,56,512", "with TestTuneCompute: kc,mc,nc;... blockings to compare")
	roundsFlag     = flag.Int("gemm.rounds", 11, "with TestTuneCompute: rounds of alternation")
	ldcPadFlag     = flag.Int("gemm.ldcpad", 0, "with TestTuneCompute: floats added to ldc")
	computeBigOnly = flag.Bool("gemm.bigonly", false, "with TestTuneCompute: measure 1024³ only")
)

// TestTuneCompute compares cache blockings of the AVX-512 level on the
// compute phase.
func TestTuneCompute(t *testing.T) {
	skipUnlessTune(t)
	var names []string
	var ims []impl
	for _, g := range strings.Split(*blockingsFlag, ";") {
		im := implAVX512
		if _, err := fmt.Sscanf(g, "%d,%d,%d", &im.kc, &im.mc, &im.nc); err != nil {
			t.Fatalf("-gemm.blockings %q: %v", g, err)
		}
		names = append(names, fmt.Sprintf("kc=%d mc=%d nc=%d", im.kc, im.mc, im.nc))
		ims = append(ims, im)
	}
	shapes := []shape{{1024, 1024, 1024}, {448, 448, 448}, {1024, 448, 448}, {448, 1024, 448}, {448, 448, 1024}}
	if *computeBigOnly {
		shapes = shapes[:1]
	}
	for _, s := range shapes {
		compareCompute(s.m, s.n, s.k, names, ims, *roundsFlag)
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
		lda, ldb := s.lds()
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
	shapes := append([]namedShape{{"bench 64x784x128", false, false, 64, 128, 784}, {"512³", false, false, 512, 512, 512}, {"448³", false, false, 448, 448, 448}, {"1000³", false, false, 1000, 1000, 1000}, {"1000x1000x1000 A^T", true, false, 1000, 1000, 1000}}, trainShapes...)
	if *colBPanelsFlag > 0 {
		defer func(old int) { colBMaxAPanels = old }(colBMaxAPanels)
		colBMaxAPanels = *colBPanelsFlag
	}
	for _, s := range shapes {
		lda, ldb := s.lds()
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
		lda, ldb := s.lds()
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

// TestTunePhases2 times the phases of a 1024³ product on two locked
// threads by each thread's CPU time: packing, waiting for the other's
// packing, and computing its tiles; the wall time of the whole is printed
// beside them.
var phaseThreads = flag.Int("gemm.phasethreads", 2, "with TestTunePhases2: threads (1 or 2)")

func TestTunePhases2(t *testing.T) {
	skipUnlessTune(t)
	const n = 1024
	rng := rand.New(rand.NewPCG(19, 20))
	a, b, c := randSlice(rng, n*n), randSlice(rng, n*n), make([]float32, n*n)
	im := implFor(levelAVX512)
	for range 9 {
		p := &problem{m: n, n: n, k: n, alpha: 1, a: a, lda: n, b: b, ldb: n, c: c, ldc: n}
		ms, ns, ks := superBlocks(p, im)
		s := &shared{p: *p, im: im}
		bufA, bufB := getBuf(ceilDiv(ms, im.mr)*im.mr*ks+2*im.mr*im.nr), getBuf(ceilDiv(ns, im.nr)*im.nr*ks)
		sizeA := ceilDiv(ms, im.mr) * im.mr * ks
		s.packA, s.packB, s.tmp = bufA.data[:sizeA], bufB.data, bufA.data[sizeA:]
		s.blocks = planBlocks(nil, &s.p, im, ms, ns, ks, *phaseThreads, true, true)
		blk := &s.blocks[0]
		var ph [2][3]float64
		done := make(chan bool)
		t0 := time.Now()
		for id := range *phaseThreads {
			go func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				c0 := threadCPU()
				for t := blk.packQ.claim(id); t >= 0; t = blk.packQ.claim(id) {
					s.pack(blk, t)
					blk.packsDone.Add(1)
				}
				c1 := threadCPU()
				for blk.packsDone.Load() != int64(blk.packTasks) {
				}
				c2 := threadCPU()
				tmp := s.tmp[id*im.mr*im.nr:][:im.mr*im.nr]
				for t := blk.tileQ.claim(id); t >= 0; t = blk.tileQ.claim(id) {
					pi0, pj0 := blk.tile(t)
					next := -1
					if t+1 < blk.tiles {
						_, next = blk.tile(t + 1)
					}
					s.macroTile(blk, pi0, pj0, next, tmp)
				}
				ph[id] = [3]float64{c1 - c0, c2 - c1, threadCPU() - c2}
				done <- true
			}()
		}
		for range *phaseThreads {
			<-done
		}
		wall := time.Since(t0).Seconds()
		putBuf(bufA)
		putBuf(bufB)
		fmt.Printf("wall %.2f ms (%.0f GFLOP/s); pack/wait/compute ms: w0 %.2f %.2f %.2f, w1 %.2f %.2f %.2f\n", wall*1e3, 2*n*n*n/wall/1e9,
			ph[0][0]*1e3, ph[0][1]*1e3, ph[0][2]*1e3, ph[1][0]*1e3, ph[1][1]*1e3, ph[1][2]*1e3)
	}
}

// TestTunePackDst compares packing a 1024×1024 B into one 4 MiB buffer with
// packing it block by block (256 rows × 512 columns) into one reused
// 512 KiB buffer that stays in L2.
func TestTunePackDst(t *testing.T) {
	skipUnlessTune(t)
	const n, kc, nc = 1024, 256, 512
	rng := rand.New(rand.NewPCG(3, 4))
	im := implFor(levelAVX512)
	src := randSlice(rng, n*n)
	big, small := getBuf((n+16)*n).data, getBuf(kc*nc).data
	for range 5 {
		gBig := cpuRate(n*n, 5, func() {
			for j := 0; j < n; j += nc {
				im.pack.packBPanels(big[j*n:], src, n, false, j, nc, 0, n, im.nr)
			}
		})
		gSmall := cpuRate(n*n, 5, func() {
			for j := 0; j < n; j += nc {
				for p := 0; p < n; p += kc {
					im.pack.packBPanels(small, src, n, false, j, nc, p, kc, im.nr)
				}
			}
		})
		gA := cpuRate(n*n, 5, func() {
			for i := 0; i < n; i += im.mr {
				im.pack.packAPanel(big[i*n:], src, n, false, i, min(im.mr, n-i), 0, n, im.mr)
			}
		})
		gAsmall := cpuRate(n*n, 5, func() {
			for i := 0; i < n; i += im.mr {
				for p := 0; p < n; p += kc {
					im.pack.packAPanel(small[(i/im.mr%8)*im.mr*kc:], src, n, false, i, min(im.mr, n-i), p, kc, im.mr)
				}
			}
		})
		fmt.Printf("pack B 1024²: into 4 MiB %.2f Gelem/s, into a reused 512 KiB block %.2f; A: %.2f, into 8 reused panels %.2f\n", gBig, gSmall, gA, gAsmall)
	}
}

// TestTuneCopying compares, in alternation, large products computed with
// the copying kernels and with a packing phase, beside the FMA peak loop:
// on one thread by thread CPU time, on several by process CPU time per
// thread (spinning waits count, as on dedicated cores) and wall time.
var copyThreads = flag.Int("gemm.threads", 1, "with TestTuneCopying: threads (above 1: GFLOP/s by process CPU time per thread, and wall time)")

func TestTuneCopying(t *testing.T) {
	skipUnlessTune(t)
	defer func(threads int) { copyingEnabled, copyingMinThreads = true, threads }(copyingMinThreads)
	copyingMinThreads = 1
	rng := rand.New(rand.NewPCG(21, 22))
	loop, perIter := peakLoopFor(levelAVX512)
	shapes := []shape{{1024, 1024, 1024}, {512, 512, 512}, {1000, 1000, 1000}, {2048, 2048, 512}, {640, 640, 640}, {768, 768, 768}, {448, 448, 448}}
	if *computeBigOnly {
		shapes = shapes[:2]
	}
	for _, s := range shapes {
		a, b, c := randSlice(rng, s.m*s.k), randSlice(rng, s.k*s.n), make([]float32, s.m*s.n)
		flops := 2 * float64(s.m*s.n*s.k)
		reps := max(1, int(1e9/flops))
		var g, wl [2][]float64
		var ps []float64
		for range *roundsFlag {
			for v := range 2 {
				copyingEnabled = v == 1
				f := func() {
					for range reps {
						sgemm(*copyThreads, false, false, false, s.m, s.n, s.k, 1, a, s.k, b, s.n, 0, c, s.n)
					}
				}
				if *copyThreads == 1 {
					g[v] = append(g[v], cpuRate(flops*float64(reps), 1, f))
					continue
				}
				f()
				w0, t0 := time.Now(), processCPU()
				f()
				cpu, wall := processCPU()-t0, time.Since(w0).Seconds()
				g[v] = append(g[v], flops*float64(reps)/(cpu/float64(*copyThreads))/1e9)
				wl[v] = append(wl[v], flops*float64(reps)/wall/1e9)
			}
			ps = append(ps, cpuRate(float64(perIter)*1e5, 1, func() { loop(1e5) }))
		}
		pk := median(ps) * float64(*copyThreads)
		if *copyThreads > 1 {
			sort.Float64s(wl[0])
			sort.Float64s(wl[1])
			fmt.Printf("wall GFLOP/s median/best: packing %.1f/%.1f, copying %.1f/%.1f\n", median(wl[0]), wl[0][len(wl[0])-1], median(wl[1]), wl[1][len(wl[1])-1])
		}
		fmt.Printf("%4dx%4dx%4d %d threads (CPU-time) GFLOP/s: packing phase %6.1f (%3.0f%%), copying %6.1f (%3.0f%%); peak %6.1f\n",
			s.m, s.n, s.k, *copyThreads, median(g[0]), 100*median(g[0])/pk, median(g[1]), 100*median(g[1])/pk, pk)
	}
}

// TestTuneKernelCopy measures what copying costs the copying kernel in L1:
// the packed kernel, the copying kernel with nothing to copy, copying from
// L2, and copying rows 4 KiB apart from far beyond the caches.
func TestTuneKernelCopy(t *testing.T) {
	skipUnlessTune(t)
	rng := rand.New(rand.NewPCG(3, 4))
	im := implFor(levelAVX512)
	kc := 256
	a := randSlice(rng, 14*copyARowFloats)
	bb := getBuf(kc * 32).data
	copy(bb, randSlice(rng, len(bb)))
	c := make([]float32, 14*32)
	pa := randSlice(rng, kc*14)
	big := randSlice(rng, 64<<20/4) // source far beyond the caches
	small := randSlice(rng, 64*1024/4)
	dst := getBuf(8 << 20 / 4).data
	reps := 20000
	kp := im.kernels[copyingA][packedB][14]
	var q copyQueue
	for range 5 {
		var r [4]float64
		r[0] = cpuRate(2*float64(14*32*kc*reps), 1, func() {
			for range reps {
				im.kernel(kc, pa, bb, c, 32, 1, 1, 0, 0)
			}
		})
		r[1] = cpuRate(2*float64(14*32*kc*reps), 1, func() {
			for range reps {
				kp(kc, a, bb, c, 32, 1, 1, 0, q.take(0))
			}
		})
		r[2] = cpuRate(2*float64(14*32*kc*reps), 1, func() {
			q.add(newCopyJob(small, 0, 32, dst, 0, 32, 64*1024/4/32-32))
			for range reps {
				kp(kc, a, bb, c, 32, 1, 1, 0, q.take(kc/4))
				q.taken()
				if q.head < len(q.jobs) && q.jobs[q.head].count < kc/4 {
					q.finish()
					q.add(newCopyJob(small, 0, 32, dst, 0, 32, 64*1024/4/32-32))
				}
			}
			q.finish()
		})
		off := 0
		r[3] = cpuRate(2*float64(14*32*kc*reps), 1, func() {
			for range reps {
				if q.head >= len(q.jobs) || q.jobs[q.head].count < kc/4 {
					q.finish()
					off = (off + 4096*64) % (len(big) - 4096*300)
					q.add(newCopyJob(big, off, 1024, dst, (off/1024*32)%(len(dst)-300*32), 32, 256))
				}
				kp(kc, a, bb, c, 32, 1, 1, 0, q.take(kc/4))
				q.taken()
			}
			q.finish()
		})
		fmt.Printf("kernel kc=256 in L1: packed %.1f, copying kernel no copy %.1f, copying from L2 %.1f, copying from DRAM rows 4 KiB apart %.1f GFLOP/s\n", r[0], r[1], r[2], r[3])
	}
}

// TestTuneCopyingWall compares the wall time of parallel products (through
// SgemmThreads, adaptive) computed with the copying kernels and with a
// packing phase, in alternating blocks of repetitions, beside the FMA peak
// of as many threads; it prints the minimum, first quartile and median.
var wallSizes = flag.String("gemm.wallsizes", "1024,512", "with TestTuneCopyingWall: sizes n of the n³ products (the copying threshold is lowered to the smallest)")

func TestTuneCopyingWall(t *testing.T) {
	skipUnlessTune(t)
	defer func(flops float64) { copyingEnabled, copyingMinFlops = true, flops }(copyingMinFlops)
	threads := runtime.GOMAXPROCS(0)
	var sizes []int
	for _, f := range strings.Split(*wallSizes, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil {
			t.Fatalf("-gemm.wallsizes %q: %v", f, err)
		}
		sizes = append(sizes, n)
		copyingMinFlops = min(copyingMinFlops, 2*float64(n*n*n))
	}
	for _, n := range sizes {
		rng := rand.New(rand.NewPCG(23, 24))
		a, b, c := randSlice(rng, n*n), randSlice(rng, n*n), make([]float32, n*n)
		flops := 2 * float64(n*n*n)
		var ms [2][]float64
		reps := max(4, int(2e9/flops))
		for range *roundsFlag {
			for v := range 2 {
				copyingEnabled = v == 1
				for range reps {
					t0 := time.Now()
					SgemmThreads(threads, false, false, n, n, n, 1, a, n, b, n, 0, c, n)
					ms[v] = append(ms[v], time.Since(t0).Seconds()*1e3)
				}
			}
		}
		peak := PeakGFLOPS(threads, 200*time.Millisecond)
		for v, name := range []string{"packing phase", "copying"} {
			x := ms[v]
			sort.Float64s(x)
			med := x[len(x)/2]
			fmt.Printf("%d³ %d threads %-13s: min %.3f p25 %.3f median %.3f ms; median %.0f GFLOP/s = %.1f%% of peak %.0f\n",
				n, threads, name, x[0], x[len(x)/4], med, flops/med/1e6, 100*flops/med/1e6/peak, peak)
		}
	}
}
