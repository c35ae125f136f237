package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/gemm"
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// Reductions over short rows (a softmax's maximum and sum over rows of 7, a
// mean over the last axis of 3) reduced one output at a time pay a call
// and a dispatch per handful of elements. Instead a chunk of whole outputs
// is transposed, [outputs, r] to [r, outputs], with the register
// transposes, and its r rows are folded into the outputs with vector adds,
// maxima or minima.

// reducesShortRows reports whether rd reduces every output from fewer than
// minRowWidth consecutive positions by a sum, maximum or minimum, with a
// prologue that a chunk may evaluate whole.
func (rd *reduction) reducesShortRows() bool {
	switch rd.op {
	case device.ReduceSum, device.ReduceMax, device.ReduceMin:
		return rd.r > 1 && rd.r < minRowWidth && rd.pro.run == 0
	}
	return false
}

// shortOutputs reduces outputs [o0, o1) of rd.r positions each, a chunk of
// whole outputs at a time. Sums add up to rowsFoldEvery rows in float32
// before widening, as the rows path does; maxima and minima start from the
// first element and keep the first extreme (first NaN).
func (rd *reduction) shortOutputs(ws *workspace, o0, o1 int) {
	p, r := rd.pro, rd.r
	ws.prepare(p)
	per := chunkLen / r // outputs a chunk
	ws.tmp = grow(ws.tmp, per*r)
	ws.sums = grow(ws.sums, per)
	for o := o0; o < o1; o += per {
		k := min(per, o1-o)
		p.eval(ws, o*r, k*r)
		t := ws.tmp[:k*r]
		gemm.Transpose(t, k, ws.rf32[rd.reg][:k*r], r, k, r) // t[j*k+i] = element j of output o+i
		res := rd.accF[o : o+k]
		copy(res, t[:k])
		switch rd.op {
		case device.ReduceMax:
			for j := 1; j < r; j++ {
				vec.Maximum(res, t[j*k:(j+1)*k], res)
			}
		case device.ReduceMin:
			for j := 1; j < r; j++ {
				vec.Minimum(res, t[j*k:(j+1)*k], res)
			}
		default:
			sums := ws.sums[:k]
			clear(sums)
			for j := 1; j < r; j++ {
				if j%rowsFoldEvery == 0 {
					vec.AddWidened(sums, res)
					copy(res, t[j*k:(j+1)*k])
					continue
				}
				vec.Add(res, res, t[j*k:(j+1)*k])
			}
			vec.AddWidened(sums, res)
			for i, s := range sums {
				res[i] = float32(s)
			}
		}
	}
}
