package cpu

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
)

// withStreamMin sets streamMinBytes for the rest of the test.
func withStreamMin(t *testing.T, n int) {
	prev := streamMinBytes
	streamMinBytes = n
	t.Cleanup(func() { streamMinBytes = prev })
}

// TestElementwiseRandomProgramsStreaming runs the random programs of exact
// ops with every plan counted as large, so that results written straight
// into outputs use the streaming kernels and in-place inputs the
// prefetching ones, bit for bit against the scalar reference.
func TestElementwiseRandomProgramsStreaming(t *testing.T) {
	withStreamMin(t, 0)
	checkRandomPrograms(t, true)
}

// chainPlan returns a finished plan of relu(x*z + x) * 0.5 over n
// contiguous floats, with the output in its own buffer.
func chainPlan(n int) *plan {
	var b device.Builder
	x, z := b.Input(0, device.Float32), b.Input(1, device.Float32)
	y := b.Binary(device.OpMul, b.Unary(device.OpRelu, b.Binary(device.OpAdd, b.Binary(device.OpMul, x, z), x)), b.Const(0.5, device.Float32))
	b.Output(y)
	p := &plan{}
	p.reset(b.P.Code, []int{n})
	p.addF32(make([]float32, n))
	p.addF32(make([]float32, n))
	out := make([]byte, 4*n)
	p.addSink(out, device.Contiguous(nil, device.Float32, 0, []int{n}), y)
	p.finish(b.P.Outputs)
	return p
}

func TestChooseModes(t *testing.T) {
	withStreamMin(t, 1<<20)
	modes := func(p *plan) []int8 {
		var m []int8
		for _, r := range p.regs {
			m = append(m, r.mode)
		}
		return m
	}
	// x, z, x*z, +x, relu, 0.5, *0.5
	big := chainPlan(1 << 18)
	assert.Equal(t, []int8{modeCached, modeCached, modePrefetch, modeCached, modeCached, modeCached, modeStream}, modes(big),
		"the first read of in-place inputs prefetches, the stored result streams")
	small := chainPlan(1<<18 - 1)
	assert.Equal(t, make([]int8, 7), modes(small), "below the size everything is cached")

	// A stored result that another instruction reads is not streamed.
	var b device.Builder
	x := b.Input(0, device.Float32)
	e := b.Unary(device.OpExp, x)
	b.Output(e)
	b.Output(b.Unary(device.OpNeg, e))
	p := &plan{}
	n := 1 << 18
	p.reset(b.P.Code, []int{n})
	p.addF32(make([]float32, n))
	for _, r := range b.P.Outputs {
		p.addSink(make([]byte, 4*n), device.Contiguous(nil, device.Float32, 0, []int{n}), r)
	}
	p.finish(b.P.Outputs)
	assert.Equal(t, []int8{modeCached, modePrefetch, modeStream}, modes(p))
}
