package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
	"runtime"
)

// The CPU backend has the fused attention kernels.
var _ device.Attender = (*Device)(nil)

// attnForward is an attention forward pass being computed: the operands
// and the results (Out's rows contiguous, LSE contiguous).
type attnForward struct {
	a       attnDims
	q, k, v operand
	out     operand // Out, row-major (its rows out.sr apart)
	scale   float32
	causal  bool
	lb      int // query rows per block
	lse     []float32
	lseOff  int // element offset of LSE
	blocks  int // blocks per batch element
}

// attentionNow runs k one block of query rows of one batch element at a time:
// the block's scores Scale·Q·Kᵀ (only the keys some row of the block
// attends), the rows' exponentials and sums, then P·V, scaled by the rows'
// reciprocal sums, straight into Out. The weights never leave the
// worker's scratch; blocks are split over the workers.
func (d *Device) attentionNow(k *device.AttentionKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	var data [5][]float32
	for i, v := range []device.View{k.Q, k.K, k.V, k.Out, k.LSE} {
		b, err := d.data(v.Buf)
		if err != nil {
			return err
		}
		data[i] = asF32(b)
	}
	a := attnDimsOf(k.Q, k.K, k.V)
	if a.nb == 0 || a.l == 0 {
		return nil
	}
	f := &attnForward{a: a, scale: float32(k.Scale), causal: k.Causal, lb: a.blockRows(k.Causal),
		lse: data[4], lseOff: k.LSE.Offset}
	d.scratch.ints = grow(d.scratch.ints, 4*a.nb)
	ops := []operand{{}, {}, {}, {}}
	attnOperands(ops, data[:4], []device.View{k.Q, k.K, k.V, k.Out}, a, d.scratch.ints,
		[][2]int{{a.l, a.e}, {a.s, a.e}, {a.s, a.ev}, {a.l, a.ev}})
	f.q, f.k, f.v, f.out = ops[0], ops[1], ops[2], ops[3]
	f.out.sr = max(f.out.sr, a.ev) // a row stride below Ev is that of a single row
	f.blocks = (a.l + f.lb - 1) / f.lb
	tasks := a.nb * f.blocks
	cost := f.lb * a.s * (a.e + a.ev + 8) // per task: two products and the row work
	if d.serial(tasks, cost) {
		return safely(func() {
			for t := range tasks {
				f.task(d.ws[0], t)
			}
		})
	}
	return d.parallelFor(tasks, d.attnGrain(tasks), func(w, lo, hi int) {
		for t := lo; t < hi; t++ {
			f.task(d.ws[w], t)
		}
	})
}

// task computes block t (batch element t / blocks). With causal masking, a
// block whose Out came out holding a NaN or infinity is computed again one
// row at a time: in a whole block, the zero weight of a masked key
// multiplies the key's value, and a NaN or infinity there would spread NaN
// to rows that do not attend the key.
func (f *attnForward) task(ws *workspace, t int) {
	a := f.a
	bi, i0 := t/f.blocks, t%f.blocks*f.lb
	i1 := min(a.l, i0+f.lb)
	nq, nk, nv := packLen(&f.q, f.lb*a.e), packLen(&f.k, a.s*a.e), packLen(&f.v, a.s*a.ev)
	ws.pack = grow(ws.pack, f.lb*a.s+nq+nk+nv+3*f.lb)
	ar := arena{buf: ws.pack}
	s, qb, kb, vb := ar.take(f.lb*a.s), ar.take(nq), ar.take(nk), ar.take(nv)
	rows := attnRowScratch{inv: ar.take(f.lb), max: ar.take(f.lb), sum: ar.take(f.lb)}
	ns := a.keys(f.causal, i1)
	q := attnBlock(&f.q, bi, i0, i1, qb)
	k := attnBlock(&f.k, bi, 0, ns, kb)
	v := attnBlock(&f.v, bi, 0, ns, vb)
	f.block(bi, i0, i1, q, k, v, s, rows)
	if !f.causal || i1-i0 == 1 || f.outFinite(bi, i0, i1) {
		return
	}
	for i := i0; i < i1; i++ {
		f.block(bi, i, i+1, q.from(i-i0), k, v, s, rows)
	}
}

// attnRowScratch holds per-row values of a forward block: the reciprocal
// sums that scale Out's rows, and the maxima and sums that make the LSE.
type attnRowScratch struct {
	inv, max, sum []float32
}

// block computes query rows [i0, i1) of batch element bi from q (those
// rows) and the first keys of k and v; s and rows are scratch for the
// scores and the rows' values.
func (f *attnForward) block(bi, i0, i1 int, q, k, v attnMat, s []float32, rows attnRowScratch) {
	a := f.a
	m, ns := i1-i0, a.keys(f.causal, i1)
	s = s[:m*ns]
	sgemm(1, q.trans, !k.trans, m, ns, a.e, f.scale, q.m, q.ld, k.m, k.ld, 0, s, ns)
	for r := range m {
		row := s[r*ns : (r+1)*ns]
		n := a.keys(f.causal, i0+r+1)
		mx := vec.Max(row[:n])
		sum := vec.ExpSubSum(row[:n], row[:n], mx)
		clear(row[n:]) // masked keys get exactly zero weight
		rows.inv[r], rows.max[r], rows.sum[r] = float32(1/sum), mx, float32(sum)
	}
	// LSE = max + log(sum), the logarithms of the block's rows in one
	// vector call (the sums are at least 1, so rounding them to float32
	// moves their logarithms by under 2⁻²⁴ absolute).
	lse := f.lse[f.lseOff+bi*a.l+i0 : f.lseOff+bi*a.l+i1]
	vec.Log(rows.sum[:m], rows.sum[:m])
	vec.Add(lse, rows.max[:m], rows.sum[:m])
	if a.ev == 0 {
		return
	}
	ld := f.out.sr
	out := f.out.data[f.out.off[bi]+i0*ld:]
	sgemm(1, false, v.trans, m, a.ev, ns, 1, s, ns, v.m, v.ld, 0, out, ld)
	for r := range m {
		row := out[r*ld : r*ld+a.ev]
		vec.MulScalar(row, row, rows.inv[r])
	}
}

// outFinite reports whether Out's rows [i0, i1) of batch element bi hold no
// NaN or infinity.
func (f *attnForward) outFinite(bi, i0, i1 int) bool {
	ld, ev := f.out.sr, f.a.ev
	base := f.out.data[f.out.off[bi]:]
	if ld == ev {
		return allFinite(base[i0*ld : i1*ld])
	}
	for i := i0; i < i1; i++ {
		if !allFinite(base[i*ld : i*ld+ev]) {
			return false
		}
	}
	return true
}
