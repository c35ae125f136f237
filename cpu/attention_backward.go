package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
	"runtime"
)

// attnBackward is an attention backward pass being computed: the operands
// (Q, K, V, Out and GradOut as product operands, LSE's batch offsets and
// stride) and the contiguous gradients.
type attnBackward struct {
	a                 attnDims
	q, k, v, out, gdo operand
	lse               []float32
	lseOff            []int
	lseStride         int
	scale             float32
	causal            bool
	lb                int     // query rows per block
	gq, gk, gv        operand // the gradients, row-major (rows sr apart)
}

// attentionBackwardNow runs k one batch element at a time, the batch elements
// split over the workers. For each block of query rows it recomputes the
// scores, turns them into the weights P with the rows' LSE, forms
// dS = P ⊙ (GradOut·Vᵀ − D) in the same scratch, writes the block's rows of
// GradQ and adds the block's share to GradK and GradV, so no weights are
// stored beyond one block.
func (d *Device) attentionBackwardNow(k *device.AttentionBackwardKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	views := []device.View{k.Q, k.K, k.V, k.Out, k.GradOut, k.LSE, k.GradQ, k.GradK, k.GradV}
	data := make([][]float32, len(views))
	for i, v := range views {
		b, err := d.data(v.Buf)
		if err != nil {
			return err
		}
		data[i] = asF32(b)
	}
	a := attnDimsOf(k.Q, k.K, k.V)
	if a.nb == 0 {
		return nil
	}
	b := &attnBackward{a: a, scale: float32(k.Scale), causal: k.Causal, lb: a.blockRows(k.Causal),
		lse: data[5], lseStride: k.LSE.Strides[len(a.batch)]}
	d.scratch.ints = grow(d.scratch.ints, 9*a.nb)
	ops := make([]operand, 8)
	attnOperands(ops[:5], data[:5], views[:5], a, d.scratch.ints,
		[][2]int{{a.l, a.e}, {a.s, a.e}, {a.s, a.ev}, {a.l, a.ev}, {a.l, a.ev}})
	attnOperands(ops[5:], data[6:], views[6:], a, d.scratch.ints[6*a.nb:],
		[][2]int{{a.l, a.e}, {a.s, a.e}, {a.s, a.ev}})
	b.q, b.k, b.v, b.out, b.gdo = ops[0], ops[1], ops[2], ops[3], ops[4]
	b.gq, b.gk, b.gv = ops[5], ops[6], ops[7]
	// A row stride below the row's length is that of a single row.
	b.gq.sr, b.gk.sr, b.gv.sr = max(b.gq.sr, a.e), max(b.gk.sr, a.e), max(b.gv.sr, a.ev)
	b.lseOff = d.scratch.ints[5*a.nb : 6*a.nb]
	batchOffsets(b.lseOff, k.LSE, a.batch)
	cost := max(a.l, 1) * a.s * (3*a.e + 2*a.ev + 8) // per batch element: five products and the row work
	if d.serial(a.nb, cost) {
		return safely(func() {
			for bi := range a.nb {
				b.task(d.ws[0], bi)
			}
		})
	}
	return d.parallelFor(a.nb, d.attnGrain(a.nb), func(w, lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			b.task(d.ws[w], bi)
		}
	})
}

// attnBackScratch is one worker's scratch for a backward batch element:
// the weights and their gradient for a block (side by side), gathered
// operands, and two gathered rows.
type attnBackScratch struct {
	pdp, qb, kb, vb, gdob, row1, row2 []float32
}

// task computes the gradients of batch element bi block by block.
func (b *attnBackward) task(ws *workspace, bi int) {
	a := b.a
	nq, nk, nv, ngdo := packLen(&b.q, b.lb*a.e), packLen(&b.k, a.s*a.e), packLen(&b.v, a.s*a.ev), packLen(&b.gdo, b.lb*a.ev)
	ws.pack = grow(ws.pack, 2*b.lb*a.s+nq+nk+nv+ngdo+2*a.ev)
	ar := arena{buf: ws.pack}
	sc := attnBackScratch{pdp: ar.take(2 * b.lb * a.s), qb: ar.take(nq), kb: ar.take(nk),
		vb: ar.take(nv), gdob: ar.take(ngdo), row1: ar.take(a.ev), row2: ar.take(a.ev)}
	gk := b.gk.data[b.gk.off[bi]:]
	gv := b.gv.data[b.gv.off[bi]:]
	// The first block writes the keys it reads (beta 0); the others, and
	// rows computed one at a time, add to them.
	ns0 := 0
	if a.l > 0 {
		ns0 = a.keys(b.causal, min(a.l, b.lb))
	}
	clearRows(gk, b.gk.sr, a.e, ns0, a.s)
	clearRows(gv, b.gv.sr, a.ev, ns0, a.s)
	k := attnBlock(&b.k, bi, 0, a.s, sc.kb)
	v := attnBlock(&b.v, bi, 0, a.s, sc.vb)
	for i0 := 0; i0 < a.l; i0 += b.lb {
		i1 := min(a.l, i0+b.lb)
		q := attnBlock(&b.q, bi, i0, i1, sc.qb)
		gdo := attnBlock(&b.gdo, bi, i0, i1, sc.gdob)
		if b.block(bi, i0, i1, q, gdo, k, v, gk, gv, i0 == 0, &sc) {
			continue
		}
		if i0 == 0 {
			clearRows(gk, b.gk.sr, a.e, 0, ns0)
			clearRows(gv, b.gv.sr, a.ev, 0, ns0)
		}
		for i := i0; i < i1; i++ {
			b.block(bi, i, i+1, q.from(i-i0), gdo.from(i-i0), k, v, gk, gv, false, &sc)
		}
	}
}

// block computes the gradients' shares of query rows [i0, i1) of batch
// element bi from q and gdo (those rows of Q and GradOut) and k and v (the
// batch element's keys): it writes the rows of GradQ and adds to gk and gv,
// the batch element's GradK and GradV, or with first writes their rows for
// the keys the block reads.
//
// With causal masking, block refuses a block of several rows whose scores
// or GradOut·Vᵀ hold a NaN or infinity, before it writes anything, and
// returns false: the caller then computes the rows one at a time. A NaN or
// infinity in a row of Q or GradOut, or in a key of K, shows there, and in
// a whole block the zero weight of a masked entry would multiply it and
// spread NaN to gradients the entry does not reach.
func (b *attnBackward) block(bi, i0, i1 int, q, gdo, k, v attnMat, gk, gv []float32, first bool, sc *attnBackScratch) bool {
	a := b.a
	m, ns := i1-i0, a.keys(b.causal, i1)
	// The weights and their gradient lie side by side, so that one pass
	// checks both.
	pdp := sc.pdp[:2*m*ns]
	p, dp := pdp[:m*ns], pdp[m*ns:]
	sgemm(1, q.trans, !k.trans, m, ns, a.e, b.scale, q.m, q.ld, k.m, k.ld, 0, p, ns)
	sgemm(1, gdo.trans, !v.trans, m, ns, a.ev, 1, gdo.m, gdo.ld, v.m, v.ld, 0, dp, ns)
	rows := b.causal && m == 1 // a row computed alone: its masked entries may hold NaN
	if b.causal && m > 1 && !allFinite(pdp) {
		return false
	}
	for r := range m {
		i := i0 + r
		n := a.keys(b.causal, i+1)
		prow, drow := p[r*ns:r*ns+n], dp[r*ns:r*ns+n]
		vec.ExpSubSum(prow, prow, b.lse[b.lseOff[bi]+i*b.lseStride])
		dot := vec.Dot(attnRow(&b.gdo, bi, i, sc.row1), attnRow(&b.out, bi, i, sc.row2))
		vec.SubScalar(drow, drow, float32(dot))
		// Masked entries get exactly zero weight and gradient.
		clear(p[r*ns+n : (r+1)*ns])
		if rows {
			vec.Mul(drow, drow, prow)
			clear(dp[r*ns+n : (r+1)*ns])
		}
	}
	if !rows {
		// dS = P ⊙ (dP − D) in one pass over the block: a masked entry's
		// zero weight times its finite dP − D is zero.
		vec.Mul(dp, dp, p)
	}
	beta := float32(1)
	if first {
		beta = 0
	}
	if a.ev > 0 {
		sgemm(1, true, gdo.trans, ns, a.ev, m, 1, p, ns, gdo.m, gdo.ld, beta, gv, b.gv.sr)
	}
	if a.e > 0 {
		gq := b.gq.data[b.gq.off[bi]+i0*b.gq.sr:]
		sgemm(1, false, k.trans, m, a.e, ns, b.scale, dp, ns, k.m, k.ld, 0, gq, b.gq.sr)
		sgemm(1, true, q.trans, ns, a.e, m, b.scale, dp, ns, q.m, q.ld, beta, gk, b.gk.sr)
	}
	return true
}

// clearRows zeroes the first cols elements of rows [r0, r1) of the matrix
// at m, whose rows are ld elements apart.
func clearRows(m []float32, ld, cols, r0, r1 int) {
	if ld == cols {
		clear(m[r0*cols : r1*cols])
		return
	}
	for r := r0; r < r1; r++ {
		clear(m[r*ld : r*ld+cols])
	}
}
