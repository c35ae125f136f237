package gemm

import (
	"sync"
	"sync/atomic"
)

// problem holds the arguments of one product.
type problem struct {
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	a              []float32
	lda            int
	b              []float32
	ldb            int
	c              []float32
	ldc            int
}

// Super-blocks bound the packing buffers: the product is cut into pieces of
// at most maxDepth along k whose packed A and B each hold about packBudget
// floats. Typical products are a single super-block. Tests shrink both to
// exercise the multi-block paths.
var (
	maxDepth   = 4096
	packBudget = 1 << 22
)

// ceilDiv returns ceil(a/b) for a ≥ 0, b > 0.
func ceilDiv(a, b int) int { return (a + b - 1) / b }

// balancedBlock splits n into the fewest blocks of at most max and returns
// the size of the largest, so the blocks come out nearly equal.
func balancedBlock(n, max int) int { return ceilDiv(n, ceilDiv(n, max)) }

// superBlocks returns the super-block sizes along m, n and k for im.
func superBlocks(p *problem, im *impl) (ms, ns, ks int) {
	ks = balancedBlock(p.k, maxDepth)
	ms = min(p.m, max(im.mr, packBudget/ks/im.mr*im.mr))
	ns = min(p.n, max(im.nr, packBudget/ks/im.nr*im.nr))
	return ms, ns, ks
}

// run computes the product on up to threads goroutines (the caller's
// included). p.k ≥ 1, p.m ≥ 1, p.n ≥ 1.
func run(p *problem, im *impl, threads int) {
	ms, ns, ks := superBlocks(p, im)
	s := &shared{p: p, im: im, ms: ms, ns: ns, ks: ks}
	bufA, bufB := getBuf(ceilDiv(ms, im.mr)*im.mr*ks), getBuf(ceilDiv(ns, im.nr)*im.nr*ks)
	defer putBuf(bufA)
	defer putBuf(bufB)
	s.packA, s.packB = bufA.data, bufB.data

	threads = min(threads, s.maxUsefulThreads())
	s.threads = threads
	s.bar = newBarrier(threads)
	if threads == 1 {
		s.work(0)
		return
	}
	var wg sync.WaitGroup
	wg.Add(threads - 1)
	for id := 1; id < threads; id++ {
		go func() {
			defer wg.Done()
			s.work(id)
		}()
	}
	s.work(0)
	wg.Wait()
}

// shared is the state the workers of one product share.
type shared struct {
	p            *problem
	im           *impl
	ms, ns, ks   int
	packA, packB []float32
	threads      int
	bar          *barrier
	nextPack     atomic.Int64
	nextTile     atomic.Int64
}

// block is one super-block: rows [i0, i0+rows), columns [j0, j0+cols),
// depths [p0, p0+depth) of the product.
type block struct {
	i0, rows, j0, cols, p0, depth int
	packB                         bool // this block packs B (the first block of its column range)
	tm, tn                        int  // panels per macro tile along m and n
	kc                            int  // depth of one cache block
}

// blocks lists the super-blocks in the order every worker walks them.
func (s *shared) blocks() []block {
	var bs []block
	p := s.p
	for p0 := 0; p0 < p.k; p0 += s.ks {
		for j0 := 0; j0 < p.n; j0 += s.ns {
			for i0 := 0; i0 < p.m; i0 += s.ms {
				b := block{i0: i0, rows: min(s.ms, p.m-i0), j0: j0, cols: min(s.ns, p.n-j0),
					p0: p0, depth: min(s.ks, p.k-p0), packB: i0 == 0}
				b.tm, b.tn = tileGrid(ceilDiv(b.rows, s.im.mr), ceilDiv(b.cols, s.im.nr), s.im, s.threads)
				b.kc = balancedBlock(b.depth, s.im.kc)
				bs = append(bs, b)
			}
		}
	}
	return bs
}

// maxUsefulThreads bounds the worker count by the macro tiles of the first
// super-block, the largest one.
func (s *shared) maxUsefulThreads() int {
	mp, np := ceilDiv(min(s.ms, s.p.m), s.im.mr), ceilDiv(min(s.ns, s.p.n), s.im.nr)
	return mp * np
}

// tileGrid chooses macro tiles of tm×tn micro-panels for a block of mp×np
// micro-panels: tm keeps the A block in L2, and with several workers tiles
// are halved, longer side first, until there are about four per worker so
// that a worker slowed by a busy machine is covered by the others.
func tileGrid(mp, np int, im *impl, threads int) (tm, tn int) {
	tm = min(max(1, im.mc/im.mr), mp)
	tn = np
	if im.nc > 0 {
		tn = min(np, max(1, im.nc/im.nr))
	}
	if threads == 1 {
		return tm, tn
	}
	want := 4 * threads
	for ceilDiv(mp, tm)*ceilDiv(np, tn) < want {
		switch {
		case tm*im.mr >= tn*im.nr && tm > 1, tn == 1 && tm > 1:
			tm = ceilDiv(tm, 2)
		case tn > 1:
			tn = ceilDiv(tn, 2)
		default:
			return tm, tn
		}
	}
	return tm, tn
}

// work is one worker's share: for every super-block, packing tasks then
// macro tiles, each taken from a shared counter.
func (s *shared) work(id int) {
	im := s.im
	tmp := make([]float32, im.mr*im.nr)
	bs := s.blocks()
	for bi := range bs {
		b := &bs[bi]
		s.pack(b)
		s.bar.wait()
		if id == 0 {
			s.nextPack.Store(0) // nobody packs until the next barrier
		}
		s.compute(b, tmp)
		if bi+1 < len(bs) {
			s.bar.wait()
			if id == 0 {
				s.nextTile.Store(0) // nobody computes until the next barrier
			}
		}
	}
}

// bPanelsPerTask is how many panels of B one packing task packs, in one
// pass over the rows of B.
const bPanelsPerTask = 8

// pack packs the panels of block b: groups of B panels, then single A
// panels, one per task.
func (s *shared) pack(b *block) {
	p, im := s.p, s.im
	nb := 0
	if b.packB {
		nb = ceilDiv(b.cols, im.nr*bPanelsPerTask)
	}
	na := ceilDiv(b.rows, im.mr)
	for {
		t := int(s.nextPack.Add(1) - 1)
		switch {
		case t < nb:
			j := t * im.nr * bPanelsPerTask
			im.pack.packBPanels(s.packB[j*b.depth:], p.b, p.ldb, p.transB, b.j0+j, min(im.nr*bPanelsPerTask, b.cols-j), b.p0, b.depth, im.nr)
		case t < nb+na:
			i := (t - nb) * im.mr
			im.pack.packAPanel(s.packA[i*b.depth:], p.a, p.lda, p.transA, b.i0+i, min(im.mr, b.rows-i), b.p0, b.depth, im.mr)
		default:
			return
		}
	}
}

// compute runs the macro tiles of block b.
func (s *shared) compute(b *block, tmp []float32) {
	gm, gn := ceilDiv(ceilDiv(b.rows, s.im.mr), b.tm), ceilDiv(ceilDiv(b.cols, s.im.nr), b.tn)
	for {
		t := int(s.nextTile.Add(1) - 1)
		if t >= gm*gn {
			return
		}
		s.macroTile(b, t/gn*b.tm, t%gn*b.tn, tmp)
	}
}
