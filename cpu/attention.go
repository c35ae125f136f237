package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// The CPU backend has the fused attention kernels.
var _ device.Attender = (*Device)(nil)

// attnForward is an attention forward pass being computed: the operands
// and the contiguous results.
type attnForward struct {
	a        attnDims
	q, k, v  operand
	scale    float32
	causal   bool
	lb       int // query rows per block
	out, lse []float32
	outOff   int // element offsets of Out and LSE
	lseOff   int
	blocks   int // blocks per batch element
}

// Attention runs k one block of query rows of one batch element at a time:
// the block's scores Scale·Q·Kᵀ (only the keys some row of the block
// attends), the rows' exponentials and sums, then P·V, scaled by the rows'
// reciprocal sums, straight into Out. The weights never leave the
// worker's scratch; blocks are split over the workers.
func (d *Device) Attention(k *device.AttentionKernel) error {
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
		out: data[3], lse: data[4], outOff: k.Out.Offset, lseOff: k.LSE.Offset}
	d.scratch.ints = grow(d.scratch.ints, 3*a.nb)
	ops := []operand{{}, {}, {}}
	attnOperands(ops, data[:3], []device.View{k.Q, k.K, k.V}, a, d.scratch.ints,
		[][2]int{{a.l, a.e}, {a.s, a.e}, {a.s, a.ev}})
	f.q, f.k, f.v = ops[0], ops[1], ops[2]
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
	if !f.causal || i1-i0 == 1 || allFinite(f.out[f.outOff+(bi*a.l+i0)*a.ev:f.outOff+(bi*a.l+i1)*a.ev]) {
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
	out := f.out[f.outOff+(bi*a.l+i0)*a.ev:]
	sgemm(1, false, v.trans, m, a.ev, ns, 1, s, ns, v.m, v.ld, 0, out, a.ev)
	for r := range m {
		row := out[r*a.ev : (r+1)*a.ev]
		vec.MulScalar(row, row, rows.inv[r])
	}
}
