package cpu

import (
	"runtime"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// isIdentity reports whether p stores its float32 input 0 unchanged and
// reads nothing else.
func isIdentity(p device.Program) bool {
	return len(p.Code) == 1 && len(p.Outputs) == 1 && p.Outputs[0] == 0 &&
		p.Code[0].Op == device.OpInput && p.Code[0].Index == 0 && p.Code[0].Type == device.Float32
}

// gemmParallelFlops is the smallest product (2·m·n·k) worth splitting over
// goroutines inside one sgemm call.
const gemmParallelFlops = 1 << 21

// mmJob is a batched product being computed: one sgemm call per batch, each
// followed by the epilogue over that batch's part of the result while it is
// still in cache.
type mmJob struct {
	m, n, k int
	a, b    operand
	c       []float32 // the contiguous result, Batch ++ [M, N]
	epi     *plan     // the epilogue, or nil when c is the output itself
}

// product computes batch bi on threads goroutines and runs its epilogue
// on ws. packA and packB are scratch for operands that must be packed.
func (j *mmJob) product(ws *workspace, bi, threads int, packA, packB *[]float32) {
	a, lda, ta := j.a.matrix(bi, packA)
	b, ldb, tb := j.b.matrix(bi, packB)
	mn := j.m * j.n
	c := j.c[bi*mn : (bi+1)*mn]
	if j.k == 0 {
		clear(c)
	} else {
		sgemm(threads, ta, tb, j.m, j.n, j.k, 1, a, lda, b, ldb, 0, c, j.n)
	}
	if j.epi != nil && threads == 1 {
		j.epi.runRange(ws, bi*mn, (bi+1)*mn)
	}
}

// matMulNow runs a batched matrix product with epilogue. Operands whose matrices
// are row-major or transposed (unit stride along either of the last two
// dimensions) go to sgemm in place; others are packed first. With few
// batches each product is split over the workers; with many, whole
// products are.
func (d *Device) matMulNow(k *device.MatMulKernel) error {
	defer runtime.KeepAlive(k) // its buffers stay mapped while it runs (see newBuffer)
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
	if total == 0 {
		if direct {
			return nil
		}
		return d.epilogue(k.Epilogue, k.EpilogueInputs, k.Outputs, d.scratch.shape, c)
	}
	j := &mmJob{m: k.M, n: k.N, k: k.K, c: c}
	if !direct {
		if j.epi, err = d.epiPlan(k.Epilogue, k.EpilogueInputs, k.Outputs, d.scratch.shape, c); err != nil {
			return err
		}
	}
	bt := device.NumElements(k.Batch)
	d.scratch.ints = grow(d.scratch.ints, 2*bt)
	j.a.init(asF32(aData), k.A, k.Batch, d.scratch.ints[:bt], k.M, k.K)
	j.b.init(asF32(bData), k.B, k.Batch, d.scratch.ints[bt:], k.K, k.N)
	if j.a.shared && j.a.pack {
		j.a.packed = j.a.packOnce(&d.scratch.f32c)
	}
	if j.b.shared && j.b.pack {
		j.b.packed = j.b.packOnce(&d.scratch.f32b)
	}
	return d.runMatMul(j, bt)
}

// runMatMul runs the products of j's bt batches.
func (d *Device) runMatMul(j *mmJob, bt int) error {
	flops := 2 * j.m * j.n * max(j.k, 1)
	w := d.workers
	perBatch := w > 1 && bt >= w && (bt >= 4*w || bt%w == 0 || flops < gemmParallelFlops)
	if perBatch {
		if d.serial(bt, flops/2) {
			ws := d.ws[0]
			return safely(func() {
				for bi := 0; bi < bt; bi++ {
					j.product(ws, bi, 1, &ws.pack, &ws.tmp)
				}
			})
		}
		return d.parallelFor(bt, 1, func(w, lo, hi int) {
			ws := d.ws[w]
			for bi := lo; bi < hi; bi++ {
				j.product(ws, bi, 1, &ws.pack, &ws.tmp)
			}
		})
	}
	threads := w
	if flops < gemmParallelFlops {
		threads = 1
	}
	mn := j.m * j.n
	split := threads > 1 && splitDepth(j.m, j.n, j.k, w)
	for bi := 0; bi < bt; bi++ {
		ws := d.ws[0]
		var err error
		if split {
			err = d.productSplitDepth(j, bi)
		} else {
			err = safely(func() { j.product(ws, bi, threads, &d.scratch.f32c, &d.scratch.f32b) })
		}
		if err != nil {
			return err
		}
		if j.epi != nil && threads > 1 {
			if err := d.runSpanSplit(j.epi, bi*mn, (bi+1)*mn, true); err != nil {
				return err
			}
		}
	}
	return nil
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

// epiPlan compiles an epilogue program over shape whose input 0 is the
// contiguous result acc, without running it.
func (d *Device) epiPlan(p device.Program, epiIn, outs []device.View, shape []int, acc []float32) (*plan, error) {
	epi := &d.plans[1]
	epi.reset(p.Code, shape)
	epi.addF32(acc)
	if err := d.addViews(epi, epiIn); err != nil {
		return nil, err
	}
	if err := d.addSinks(epi, outs, p.Outputs); err != nil {
		return nil, err
	}
	epi.finish(p.Outputs)
	epi.compileFused()
	return epi, nil
}

// epilogue runs an epilogue program over shape whose input 0 is the
// contiguous result acc.
func (d *Device) epilogue(p device.Program, epiIn, outs []device.View, shape []int, acc []float32) error {
	epi, err := d.epiPlan(p, epiIn, outs, shape, acc)
	if err != nil {
		return err
	}
	return d.run(epi)
}
