package cpu

import (
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// isIdentity reports whether p stores its float32 input 0 unchanged and
// reads nothing else.
func isIdentity(p device.Program) bool {
	return len(p.Code) == 1 && len(p.Outputs) == 1 && p.Outputs[0] == 0 &&
		p.Code[0].Op == device.OpInput && p.Code[0].Index == 0 && p.Code[0].Type == device.Float32
}

// gemmJob is a batched product being computed: tasks are (batch, row tile)
// pairs, each one call of sgemm.
type gemmJob struct {
	m, n, k    int
	a, b, c    []float32
	aOff, bOff []int // element offset of each batch's matrix
	sam, sak   int   // A's row and column strides
	sbk, sbn   int   // B's row and column strides
	aDirect    bool  // A's rows are contiguous: no packing
	bPacked    []float32
	bPerBatch  bool // bPacked holds one K×N matrix per batch, else one shared
	tile, tpb  int  // rows per task, tasks per batch
}

// task computes rows [i0, i0+tile) of batch bi.
func (g *gemmJob) task(ws *workspace, t int) {
	bi, i0 := t/g.tpb, (t%g.tpb)*g.tile
	rows := min(g.tile, g.m-i0)
	a, lda := g.a[g.aOff[bi]+i0*g.sam:], g.sam
	if g.m == 1 || rows == 1 {
		lda = g.k
	}
	if !g.aDirect {
		ws.pack = grow(ws.pack, rows*g.k)
		base := g.aOff[bi] + i0*g.sam
		for i := 0; i < rows; i++ {
			row := ws.pack[i*g.k : (i+1)*g.k]
			q := base + i*g.sam
			for p := range row {
				row[p] = g.a[q]
				q += g.sak
			}
		}
		a, lda = ws.pack, g.k
	}
	var b []float32
	ldb := g.n
	switch {
	case g.bPacked == nil:
		b, ldb = g.b[g.bOff[bi]:], g.sbk
		if g.k == 1 {
			ldb = g.n
		}
	case g.bPerBatch:
		b = g.bPacked[bi*g.k*g.n:]
	default:
		b = g.bPacked
	}
	sgemm(rows, g.n, g.k, a, lda, b, ldb, g.c[(bi*g.m+i0)*g.n:], g.n)
}

// packB copies batch bi's K×N matrix of B into dst row-major.
func (g *gemmJob) packB(dst []float32, bi int) {
	for p := 0; p < g.k; p++ {
		row := dst[p*g.n : (p+1)*g.n]
		q := g.bOff[bi] + p*g.sbk
		for j := range row {
			row[j] = g.b[q]
			q += g.sbn
		}
	}
}

// batchOffsets fills off with the element offset of each batch index of v,
// whose leading len(batch) dimensions are the batch.
func batchOffsets(off []int, v device.View, batch []int) {
	nb := len(batch)
	for bi := range off {
		o, rem := v.Offset, bi
		for d := nb - 1; d >= 0; d-- {
			o += (rem % batch[d]) * v.Strides[d]
			rem /= batch[d]
		}
		off[bi] = o
	}
}

// MatMul runs a batched matrix product with epilogue.
func (d *Device) MatMul(k *device.MatMulKernel) error {
	if err := k.Validate(); err != nil {
		return err
	}
	if err := d.lock(); err != nil {
		return err
	}
	defer d.mu.Unlock()
	aData, err := d.data(k.A.Buf)
	if err != nil {
		return err
	}
	bData, err := d.data(k.B.Buf)
	if err != nil {
		return err
	}
	d.scratch.shape = append(append(d.scratch.shape[:0], k.Batch...), k.M, k.N)
	total := device.NumElements(d.scratch.shape)
	c, direct, err := d.result(k.Epilogue, k.EpilogueInputs, k.Outputs, total, aData, bData)
	if err != nil {
		return err
	}
	if total > 0 {
		if k.K == 0 {
			clear(c)
		} else if err := d.gemm(k, asF32(aData), asF32(bData), c); err != nil {
			return err
		}
	}
	if direct {
		return nil
	}
	return d.epilogue(k.Epilogue, k.EpilogueInputs, k.Outputs, d.scratch.shape, c)
}

// result returns where a matmul or convolution accumulates its total
// elements: straight into the output when the epilogue is the identity on a
// float32 output that shares no buffer with the operands, else device
// scratch that the epilogue then reads.
func (d *Device) result(epi device.Program, epiIn, outs []device.View, total int, operands ...[]byte) ([]float32, bool, error) {
	if isIdentity(epi) && len(epiIn) == 0 && outs[0].DType == device.Float32 {
		data, err := d.data(outs[0].Buf)
		if err != nil {
			return nil, false, err
		}
		shared := false
		for _, o := range operands {
			shared = shared || unsafe.SliceData(o) == unsafe.SliceData(data)
		}
		if !shared {
			return asF32(data)[outs[0].Offset : outs[0].Offset+total], true, nil
		}
	}
	d.scratch.f32a = grow(d.scratch.f32a, total)
	return d.scratch.f32a, false, nil
}

// epilogue runs an epilogue program over shape whose input 0 is the
// contiguous result acc.
func (d *Device) epilogue(p device.Program, epiIn, outs []device.View, shape []int, acc []float32) error {
	epi := &d.plans[1]
	epi.reset(p.Code, shape)
	epi.addF32(acc)
	if err := d.addViews(epi, epiIn); err != nil {
		return err
	}
	if err := d.addSinks(epi, outs, p.Outputs); err != nil {
		return err
	}
	epi.finish(p.Outputs)
	return d.run(epi)
}

// gemm computes every batch of the product into c.
func (d *Device) gemm(k *device.MatMulKernel, a, b, c []float32) error {
	nb := len(k.Batch)
	bt := device.NumElements(k.Batch)
	g := &gemmJob{m: k.M, n: k.N, k: k.K, a: a, b: b, c: c,
		sam: k.A.Strides[nb], sak: k.A.Strides[nb+1], sbk: k.B.Strides[nb], sbn: k.B.Strides[nb+1]}
	d.scratch.ints = grow(d.scratch.ints, 2*bt)
	g.aOff, g.bOff = d.scratch.ints[:bt], d.scratch.ints[bt:]
	batchOffsets(g.aOff, k.A, k.Batch)
	batchOffsets(g.bOff, k.B, k.Batch)
	g.aDirect = g.sak == 1 && (g.sam >= g.k || g.m == 1)
	if !(g.sbn == 1 && (g.sbk >= g.n || g.k == 1)) {
		shared := true
		for _, o := range g.bOff {
			shared = shared && o == g.bOff[0]
		}
		nPack := bt
		if shared {
			nPack = 1
		}
		g.bPerBatch = !shared
		d.scratch.f32b = grow(d.scratch.f32b, nPack*g.k*g.n)
		g.bPacked = d.scratch.f32b
		for bi := 0; bi < nPack; bi++ {
			g.packB(g.bPacked[bi*g.k*g.n:], bi)
		}
	}
	// Tasks: whole batches when there are enough, else row tiles.
	g.tile = g.m
	if bt < 2*d.workers {
		want := (2*d.workers + bt - 1) / bt // tiles per batch
		g.tile = max(roundUp((g.m+want-1)/want, 4), 16)
	}
	g.tpb = (g.m + g.tile - 1) / g.tile
	tasks := bt * g.tpb
	if tasks == 1 || d.serial(tasks, g.tile*g.n*g.k) {
		ws := d.ws[0]
		return safely(func() {
			for t := 0; t < tasks; t++ {
				g.task(ws, t)
			}
		})
	}
	return d.parallelFor(tasks, 1, func(w, lo, hi int) {
		for t := lo; t < hi; t++ {
			g.task(d.ws[w], t)
		}
	})
}
