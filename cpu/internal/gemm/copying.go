package gemm

import "sync/atomic"

// Copying while computing: large products on several workers, at a level
// with copying kernels (AVX-512), have no packing phase and no barrier
// between packing and computing.
//
// A needs no transpose for the copying kernels: they read a row-major block
// of the tile's rows, copyARowFloats apart (a stride that spreads the rows
// over the L1 sets), and every worker copies the rows of its own tiles into
// one of its two slots while it computes from the other: the copying
// kernels move one 128-byte piece per iteration of their k loop on load and
// store ports that the FMAs leave idle, prefetching the source well ahead.
// A slot holds the next depth block of the worker's tile, or the first of
// its next tile, claimed when the last depth block starts.
//
// B is packed into the shared buffer as in the other products, one depth
// block of a column of tiles at a time, by the first worker that needs it,
// just before its first sweep (so it is still in that core's L2); a worker
// that needs a block another is packing waits for it.
//
// Measured on the development machine (DESIGN.md): on one thread, by
// thread CPU time, the packing phase is as fast or 1–3% faster for
// products of 1000³ and more, so serial products keep it; on two free
// cores copying is 1–3% faster (median wall time of 1024³ and 512³), and
// on two cores shared with other work, where a worker held up by the OS
// kept the other waiting at the packing phase's barrier, 8–50%.

// copyARowFloats is the distance between the rows of the A blocks that
// copying kernels read; asmgen's copyARowBytes is the same in bytes.
const copyARowFloats = 272

// copyingMinFlops is the smallest product (2*m*n*k) computed with the
// copying kernels; smaller ones keep the packing phase, whose cost their
// data, mostly in cache, makes small. Tests lower it.
var copyingMinFlops = float64(1 << 27)

// copyingMinThreads is the fewest workers a product needs to be computed
// with the copying kernels; copyingEnabled lets tuning tests compare with
// the packing phase.
var (
	copyingMinThreads = 2
	copyingEnabled    = true
)

// States of a depth block of a column of B panels.
const (
	bUnpacked = iota
	bPacking  // a worker is packing it
	bReady
)

// useCopying reports whether product p, on threads workers, is computed
// with im's copying kernels (callers check first that neither A nor B is
// read in place).
func useCopying(p *problem, im *impl, threads int) bool {
	return copyingEnabled && threads >= copyingMinThreads && im.kernels[copyingA][packedB] != nil &&
		!p.transA && !p.transB && im.kc <= copyARowFloats-16 &&
		float64(2*p.m)*float64(p.n)*float64(p.k) >= copyingMinFlops
}

// copySlotFloats is the size of one worker's A slot: the rows of the
// tallest macro tile.
func copySlotFloats(im *impl) int { return max(1, im.mc/im.mr) * im.mr * copyARowFloats }

// copier is one worker's state in a copying product.
type copier struct {
	q     copyQueue
	slots [2][]float32
	holds [2]slotTag // the A block planned into each slot
}

// slotTag names an A block: tile t at depth block kb (t < 0: none).
type slotTag struct{ t, kb int }

// prepareCopying sets up the workers' copiers and the B block states of
// every super-block; slots is threads*2 A slots.
func (s *shared) prepareCopying(threads int, slots []float32) {
	if cap(s.copiers) < threads {
		s.copiers = make([]*copier, threads)
	}
	s.copiers = s.copiers[:threads]
	n := copySlotFloats(s.im)
	for w := range s.copiers {
		if s.copiers[w] == nil {
			s.copiers[w] = new(copier)
		}
		c := s.copiers[w]
		c.slots = [2][]float32{slots[2*w*n:][:n], slots[(2*w+1)*n:][:n]}
		c.holds = [2]slotTag{{-1, 0}, {-1, 0}}
	}
	for i := range s.blocks {
		b := &s.blocks[i]
		need := ceilDiv(b.np, b.tn) * ceilDiv(b.depth, b.kc)
		if cap(b.bState) < need {
			b.bState = make([]atomic.Int32, need)
		}
		b.bState = b.bState[:need]
		for j := range b.bState {
			b.bState[j].Store(bUnpacked)
		}
	}
}

// releaseSlots drops the copiers' references to the A slots; only for
// serial products, whose state is cached (a late helper of a parallel
// product may still look at its copier).
func (s *shared) releaseSlots() {
	for _, c := range s.copiers {
		c.slots = [2][]float32{}
	}
}

// copyWork computes worker id's tiles of block b with the copying kernels.
func (s *shared) copyWork(b *block, id int, clock *waitClock) {
	c := s.copiers[id]
	var tmp []float32
	depthBlocks := ceilDiv(b.depth, b.kc)
	c.holds = [2]slotTag{{-1, 0}, {-1, 0}}
	for t := b.tileQ.claim(id); t >= 0; {
		if tmp == nil { // only now: a late worker finds no tile and must not touch s
			tmp = s.tmp[id*s.im.mr*s.im.nr:][:s.im.mr*s.im.nr]
		}
		pi0, pj0 := b.tile(t)
		next := -1
		for kb := 0; kb < depthBlocks; kb++ {
			c.q.finish() // the A block planned for now, if any
			slot := c.slotHolding(t, kb)
			if slot < 0 { // not planned ahead: copy it now
				slot = 0
				s.planA(b, c, slot, t, kb, true)
			}
			s.ensureB(b, t, kb, clock)
			if kb+1 < depthBlocks {
				s.planA(b, c, 1-slot, t, kb+1, false)
			} else if next = b.tileQ.claim(id); next >= 0 {
				s.planA(b, c, 1-slot, next, 0, false)
			}
			nextPj0 := -1
			if next >= 0 {
				_, nextPj0 = b.tile(next)
			}
			s.copyDepthBlock(b, c, c.slots[slot], pi0, pj0, kb, nextPj0, tmp)
		}
		b.tilesDone.Add(1)
		t = next
	}
}

// slotHolding returns the slot planned with tile t's depth block kb, or -1.
func (c *copier) slotHolding(t, kb int) int {
	for i, h := range c.holds {
		if h == (slotTag{t, kb}) {
			return i
		}
	}
	return -1
}

// planA queues the copy of tile t's rows of A at depth block kb into slot,
// or with now copies them at once, row by row. Queued, there is one job per
// 32-float column of pieces, down the rows (the kernels' prefetch then runs
// down the rows too: measured, 4–5% faster than row by row); the last
// columns of a depth block that is not a multiple of 32 deep are copied at
// once.
func (s *shared) planA(b *block, c *copier, slot, t, kb int, now bool) {
	p, mr := &s.p, s.im.mr
	pi0, _ := b.tile(t)
	i0 := pi0 * mr
	rows := min(b.tm*mr, b.rows-i0)
	pc, kc := b.depthBlock(kb)
	dst := c.slots[slot]
	src0 := (b.i0+i0)*p.lda + b.p0 + pc
	c.holds[slot] = slotTag{t, kb}
	if now {
		for r := range rows {
			copy(dst[r*copyARowFloats:r*copyARowFloats+kc], p.a[src0+r*p.lda:])
		}
		return
	}
	full := kc / pieceFloats * pieceFloats
	for j := 0; j < full; j += pieceFloats {
		c.q.add(newCopyJob(p.a, src0+j, p.lda, dst, j, copyARowFloats, rows))
	}
	if full < kc {
		for r := range rows {
			copy(dst[r*copyARowFloats+full:r*copyARowFloats+kc], p.a[src0+r*p.lda+full:])
		}
	}
}

// bStateOf returns the state of the depth block kb of the B panels under
// tile t.
func (b *block) bStateOf(t, kb int) *atomic.Int32 {
	col := t / ceilDiv(b.mp, b.tm)
	return &b.bState[col*ceilDiv(b.depth, b.kc)+kb]
}

// ensureB returns once depth block kb of the B panels under tile t is
// packed: at once if ready, after packing it if nobody else is, or after
// waiting for the worker packing it (which never waits while it packs).
func (s *shared) ensureB(b *block, t, kb int, clock *waitClock) {
	st := b.bStateOf(t, kb)
	switch st.Load() {
	case bReady:
		return
	case bUnpacked:
		if st.CompareAndSwap(bUnpacked, bPacking) {
			p, nr := &s.p, s.im.nr
			_, pj0 := b.tile(t)
			pj1 := min(pj0+b.tn, b.np)
			pc, kc := b.depthBlock(kb)
			j := pj0 * nr
			s.im.pack.packBPanelsStrided(s.packB[j*b.depth+pc*nr:], b.depth*nr, p.b, p.ldb, p.transB, b.j0+j, min((pj1-pj0)*nr, b.cols-j), b.p0+pc, kc, nr)
			st.Store(bReady)
			return
		}
	}
	clock.waitUntil(func() bool { return st.Load() == bReady })
}

// copyDepthBlock computes depth block kb of the macro tile at panels
// (pi0, pj0) from the A rows in slot, with the kernels copying worker c's
// queued pieces and prefetching the next block of B (see macroTile).
func (s *shared) copyDepthBlock(b *block, c *copier, slot []float32, pi0, pj0, kb, nextPj0 int, tmp []float32) {
	p, im := &s.p, s.im
	mr, nr := im.mr, im.nr
	pi1, pj1 := min(pi0+b.tm, b.mp), min(pj0+b.tn, b.np)
	pc, kc := b.depthBlock(kb)
	beta := b.betaAt(pc, p.beta)
	pre := s.bPrefetchFor(b, pc, kc, pj0, nextPj0)
	pieces := kc / kernelPrefetchSteps // one per iteration of the k loop
	for pi := pi0; pi < pi1; pi++ {
		i := b.i0 + pi*mr
		rows := min(mr, b.i0+b.rows-i)
		ap := slot[(pi-pi0)*mr*copyARowFloats:]
		for pj := pj0; pj < pj1; pj++ {
			j := b.j0 + pj*nr
			pfA := c.q.take(pieces)
			s.callKernel(copyingA, packedB, i, j, rows, min(nr, b.j0+b.cols-j), kc, ap,
				s.packB[pj*nr*b.depth+pc*nr:], beta, tmp, pre.addr(pi-pi0, pj), pfA)
			c.q.taken()
		}
	}
}
