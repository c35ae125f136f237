package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shaderflow/shaderflow/internal/workpool"
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

// run computes the product on up to threads goroutines, the caller's
// included. p.k ≥ 1, p.m ≥ 1, p.n ≥ 1.
//
// Work is shared without a fixed-size barrier: every super-block has a
// packing phase and a compute phase whose tasks (panels to pack, macro tiles)
// are claimed from atomic counters, and a phase waits only for the tasks
// already claimed to finish. A worker goroutine that starts late (a busy
// machine can take tens of microseconds to wake one) finds the tasks taken and
// exits; the caller returns once every tile is computed, without waiting for
// workers that never got to run. Workers other than the caller are pooled
// helpers (see internal/workpool). An adaptive product reports how long the caller
// waited for them (see contention.go).
func run(p *problem, im *impl, threads int, adaptive bool) {
	ms, ns, ks := superBlocks(p, im)
	threads = max(1, min(threads, ceilDiv(ms, im.mr)*ceilDiv(ns, im.nr)))
	var s *shared
	if threads == 1 {
		s = serialStates.Get().(*shared)
		defer serialStates.Put(s)
	} else {
		s = new(shared) // late helpers may still read it: never recycled
	}
	s.p, s.im, s.clock = *p, im, nil
	s.rowA, s.colA, s.colB = useRowA(p, im), useColA(p, im), useColB(p, im)
	s.copying = !s.rowA && !s.colA && !s.colB && useCopying(p, im, threads)
	sizeA, tile := ceilDiv(ms, im.mr)*im.mr*ks, im.mr*im.nr
	switch {
	case s.rowA, s.colA:
		sizeA = 0
	case s.copying: // two A slots per worker
		sizeA = 2 * threads * copySlotFloats(im)
	}
	var bufA, bufB *packBuf
	poolA, poolB := true, true
	if threads == 1 {
		bufA, poolA = ownBuf(&s.ownA, sizeA+tile)
		bufB, poolB = ownBuf(&s.ownB, ceilDiv(ns, im.nr)*im.nr*ks)
	} else {
		bufA, bufB = getBuf(sizeA+threads*tile), getBuf(ceilDiv(ns, im.nr)*im.nr*ks)
	}
	s.packA, s.packB, s.tmp = bufA.data[:sizeA], bufB.data, bufA.data[sizeA:]
	s.blocks = planBlocks(s.blocks, &s.p, im, ms, ns, ks, threads, !s.rowA && !s.colA && !s.copying, !s.colB && !s.copying)
	if s.copying {
		s.prepareCopying(threads, s.packA)
	}
	var start time.Time
	if threads > 1 {
		if adaptive {
			start = time.Now()
			s.clock = &waitClock{judged: !s.copying && workpool.Spinning() >= threads-1}
		}
		j := &job{s: s, seats: int32(threads)}
		j.nextID.Store(1)
		workpool.Offer(j, threads-1)
	}
	s.work(0)
	last := &s.blocks[len(s.blocks)-1]
	s.clock.waitUntil(func() bool { return last.tilesDone.Load() == int64(last.tiles) })
	if s.clock != nil {
		tiles := 0
		if !s.copying {
			for i := range s.blocks {
				tiles += s.blocks[i].tiles
			}
		}
		s.clock.report(time.Since(start), int(s.helperTiles.Load()), tiles, threads)
	}
	if s.copying && threads == 1 { // a cached state must not keep the slots (tests copy serially)
		s.releaseSlots()
	}
	s.packA, s.packB, s.tmp = nil, nil, nil // late workers must not touch recycled buffers
	s.p = problem{}                         // nor may a cached state keep the caller's matrices alive
	if poolA {
		putBuf(bufA)
	}
	if poolB {
		putBuf(bufB)
	}
}

// serialStates caches the state of serial products, which no helper can
// reach, so that a small product allocates nothing.
var serialStates = sync.Pool{New: func() any { return new(shared) }}

// shared is the state the workers of one product share.
type shared struct {
	p            problem
	im           *impl
	rowA, colB   bool // A, or B's full panels, are read in place (not packed)
	colA         bool // A, stored transposed, is read in place (not packed)
	copying      bool // the copying kernels copy A while they compute (copying.go)
	copiers      []*copier
	packA, packB []float32 // with copying, packA holds the workers' A slots
	tmp          []float32 // per worker: mr*nr floats for ragged tiles
	ownA, ownB   *packBuf  // a serial product's small buffers, kept with its cached state
	blocks       []block
	clock        *waitClock   // the caller's waits (nil for serial products)
	helperTiles  atomic.Int64 // macro tiles computed by workers other than the caller
}

// block is one super-block, rows [i0, i0+rows), columns [j0, j0+cols) and
// depths [p0, p0+depth) of the product, with its task queues.
//
// With several workers, the block's columns of macro tiles are split into
// one contiguous share per worker (when there are enough of them), and its
// packing tasks likewise: worker w's share of the packing tasks is the B
// panels of its tiles, then its part of the A panels (see queue.go).
type block struct {
	i0, rows, j0, cols, p0, depth int

	mp, np    int // micro-panels along m and n
	kc        int // depth of one cache block
	tm, tn    int // micro-panels per macro tile along m and n
	bPerTask  int // B panels per packing task
	packB     bool
	shares    []packShare // per worker: its packing tasks
	packTasks int
	tiles     int

	packQ, tileQ         taskQueue
	packsDone, tilesDone atomic.Int64

	bState []atomic.Int32 // with copying: per column of tiles and depth block
}

// perWorkerShares enables the per-worker shares of tiles and packing tasks;
// tuning tests turn it off to compare with a single shared queue.
var perWorkerShares = true

// packShare is one worker's packing tasks: B panels [b0, b1) in tasks of
// bPerTask panels (none when B was packed by an earlier block of the same
// columns), then one task per A panel in [a0, a1). Its tasks are numbered
// from first.
type packShare struct {
	first, bTasks, b0, b1, a0, a1 int
}

// planBlocks lists the super-blocks in the order the workers walk them,
// reusing the storage of bs.
// Without packA, no A panels are packed; without packB, only ragged B panels
// are.
func planBlocks(bs []block, p *problem, im *impl, ms, ns, ks, threads int, packA, packB bool) []block {
	bs = bs[:0]
	for p0 := 0; p0 < p.k; p0 += ks {
		for j0 := 0; j0 < p.n; j0 += ns {
			for i0 := 0; i0 < p.m; i0 += ms {
				if len(bs) < cap(bs) {
					bs = bs[:len(bs)+1]
				} else {
					bs = append(bs, block{})
				}
				b := &bs[len(bs)-1]
				shares, packR, tileR, bState := b.shares, b.packQ.ranges, b.tileQ.ranges, b.bState
				*b = block{i0: i0, rows: min(ms, p.m-i0), j0: j0, cols: min(ns, p.n-j0),
					p0: p0, depth: min(ks, p.k-p0)}
				b.shares, b.packQ.ranges, b.tileQ.ranges, b.bState = shares, packR, tileR, bState
				mp, np := ceilDiv(b.rows, im.mr), ceilDiv(b.cols, im.nr)
				b.mp, b.np = mp, np
				b.kc = balancedBlock(b.depth, im.kc)
				b.tm, b.tn = tileGrid(mp, np, im, threads)
				b.tiles = ceilDiv(mp, b.tm) * ceilDiv(np, b.tn)
				b.bPerTask = max(1, min(8, b.tn, np/(2*threads)))
				b.packB = i0 == 0
				raggedB := 0 // 1 when the last B panel is cut by the edge
				if b.cols%im.nr != 0 {
					raggedB = 1
				}
				b.share(threads, raggedB, packA, packB)
			}
		}
	}
	return bs
}

// share splits block b's tiles and packing tasks among up to threads
// workers: worker w gets a contiguous run of columns of tiles (tiles are
// numbered down each column) with the B panels under them, and an equal
// part of the A panels. With fewer columns of tiles than workers there is a
// single share that every worker claims from. Without packA there are no A
// panels to pack; without packB, only the last B panel when it is ragged
// (raggedB == 1).
func (b *block) share(threads, raggedB int, packA, packB bool) {
	gm, gn := ceilDiv(b.mp, b.tm), ceilDiv(b.np, b.tn)
	w := threads
	if gn < threads || !perWorkerShares {
		w = 1
	}
	if cap(b.shares) < w {
		b.shares = make([]packShare, w)
	}
	b.shares = b.shares[:w]
	b.packQ.resize(w)
	b.tileQ.resize(w)
	n := 0
	for i := range w {
		sh := &b.shares[i]
		*sh = packShare{}
		c0, c1 := i*gn/w, (i+1)*gn/w
		b.tileQ.set(i, c0*gm, c1*gm)
		if b.packB {
			sh.b0, sh.b1 = c0*b.tn, min(c1*b.tn, b.np)
			if !packB { // only a ragged last panel, if this share has it
				sh.b0 = max(sh.b0, b.np-raggedB)
			}
			sh.bTasks = ceilDiv(max(sh.b1-sh.b0, 0), b.bPerTask)
		}
		if packA {
			sh.a0, sh.a1 = i*b.mp/w, (i+1)*b.mp/w
		}
		sh.first = n
		n += sh.bTasks + sh.a1 - sh.a0
		b.packQ.set(i, sh.first, n)
	}
	b.packTasks = n
}

// tileGrid chooses macro tiles of tm×tn micro-panels for a block of mp×np
// micro-panels: at most mc rows and nc columns, and with several workers
// tiles are halved, longer side first, until there are about four per worker
// so that a worker slowed by a busy machine is covered by the others.
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
	return tm, evenShares(np, tn, threads)
}

// evenShares returns the width, at most tn and at least half of it, of the
// columns of tiles that splits np micro-panels most evenly among the
// workers' shares (see share: contiguous runs of columns of tiles, by
// count); of equally even widths the widest. The MLP's weight-gradient product
// (25 panels, 2 workers) had columns of 8, 8, 8 and 1 panels, shares of 16
// and 9 panels, and its caller computed 58% of the tiles; at 6 the shares
// are 12 and 13.
func evenShares(np, tn, threads int) int {
	if ceilDiv(np, tn) < threads {
		return tn // one queue that every worker claims from: no shares to even out
	}
	widest := func(t int) int { // the largest share, in panels, with columns of t
		gn := ceilDiv(np, t)
		most := 0
		for i := range threads {
			c0, c1 := i*gn/threads, (i+1)*gn/threads
			most = max(most, min(c1*t, np)-c0*t)
		}
		return most
	}
	best, bestMost := tn, widest(tn)
	for t := tn - 1; t >= max(1, tn/2); t-- {
		if m := widest(t); m < bestMost {
			best, bestMost = t, m
		}
	}
	return best
}

// work is one worker's share: for every super-block, packing tasks then
// macro tiles, each claimed from the block's counters.
func (s *shared) work(id int) {
	var clock *waitClock
	if id == 0 {
		clock = s.clock
	}
	var tmp []float32
	for bi := range s.blocks {
		b := &s.blocks[bi]
		if bi > 0 { // the buffers are reused: the previous block must be done
			prev := &s.blocks[bi-1]
			clock.waitUntil(func() bool { return prev.tilesDone.Load() == int64(prev.tiles) })
		}
		if s.copying {
			s.copyWork(b, id, clock)
			continue
		}
		for t := b.packQ.claim(id); t >= 0; t = b.packQ.claim(id) {
			s.pack(b, t)
			b.packsDone.Add(1)
		}
		clock.waitUntil(func() bool { return b.packsDone.Load() == int64(b.packTasks) })
		for t := b.tileQ.claim(id); t >= 0; t = b.tileQ.claim(id) {
			if tmp == nil {
				tmp = s.tmp[id*s.im.mr*s.im.nr:][:s.im.mr*s.im.nr]
			}
			pi0, pj0 := b.tile(t)
			nextPj0 := -1
			if t+1 < b.tiles {
				_, nextPj0 = b.tile(t + 1)
			}
			s.macroTile(b, pi0, pj0, nextPj0, tmp)
			if id > 0 {
				s.helperTiles.Add(1)
			}
			b.tilesDone.Add(1)
		}
	}
}

// tile returns the first micro-panels of macro tile t. Tiles are numbered
// down each column of tiles first, so that consecutive tiles share their
// blocks of B.
func (b *block) tile(t int) (pi0, pj0 int) {
	gm := ceilDiv(b.mp, b.tm)
	return t % gm * b.tm, t / gm * b.tn
}

// yield lets other goroutines run while a worker waits.
func yield() { runtime.Gosched() }

// pack runs packing task t of block b: a group of B panels, or one A panel.
func (s *shared) pack(b *block, t int) {
	p, im := &s.p, s.im
	sh := &b.shares[0]
	for i := range b.shares {
		if t >= b.shares[i].first {
			sh = &b.shares[i]
		}
	}
	t -= sh.first
	if t < sh.bTasks {
		q := sh.b0 + t*b.bPerTask // first panel
		j := q * im.nr
		im.pack.packBPanels(s.packB[j*b.depth:], p.b, p.ldb, p.transB, b.j0+j, min(im.nr*min(b.bPerTask, sh.b1-q), b.cols-j), b.p0, b.depth, im.nr)
		return
	}
	i := (sh.a0 + t - sh.bTasks) * im.mr
	im.pack.packAPanel(s.packA[i*b.depth:], p.a, p.lda, p.transA, b.i0+i, min(im.mr, b.rows-i), b.p0, b.depth, im.mr)
}
