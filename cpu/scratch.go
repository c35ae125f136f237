package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/gemm"
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// scratch holds device-wide temporaries reused across kernels; kernels hold
// the device lock while they use it.
type scratch struct {
	f32a, f32b []float32
	f32c, f32d []float32
	i32        []int32
	ints       []int
	shape      []int
	states     []accState
	f64        []float64       // per-worker (or per-task) sums of a row-by-row (or split) reduction
	views      []device.View   // a reduction's inputs, in the order it iterates
	perm       []int           // their shapes and strides
	order      []int           // a split reduction's order of axes (reduce_around.go)
	taps       tapsScratch     // a convolution's weights for row patches (conv_taps.go)
	wino       winogradScratch // a convolution's transformed filters (conv_winograd.go)
}

// tapsScratch holds a convolution's weights for products over row patches:
// by kernel row, then packed for gemm.SgemmTaps, one operand per group.
type tapsScratch struct {
	byRow  []float32
	packed []gemm.TapsA
}

// grow returns s resized to n elements, reallocating only when it must.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// workspace is one worker's scratch: register slots for the interpreter and
// buffers for packing and im2col.
type workspace struct {
	f32slots [][]float32
	i32slots [][]int32
	u8slots  [][]uint8
	rf32     [][]float32 // register slices of the chunk being evaluated
	ri32     [][]int32
	ru8      [][]uint8
	u16      []uint16 // raw half-precision loads
	idx      []int    // odometer
	pack     []float32
	col      []float32
	band     []float32 // padded input rows for patches (im2col_band.go)
	// rowPatchesOf is the convolution (convJob.seq) whose row patches col
	// holds, their padding columns cleared (conv_taps.go).
	rowPatchesOf uint64
	tmp          []float32
	taps         []int32          // max pooling's winning taps (pool_rows.go)
	sortPacked   []uint64         // a line's keys above their positions (sort.go)
	sortPairs    []keyPos         // a line's 64-bit keys and positions (sort.go)
	sums         []float64        // float64 totals of short rows (reduce_short.go)
	plane        []float32        // padded input planes for col2im (conv_modes.go)
	vm           vec.FusedProgram // this worker's copy of a plan's program with periodic operands
}

// prepare sizes the register tables and scratch for evaluating plan p.
func (ws *workspace) prepare(p *plan) {
	n, slots := len(p.code), p.nslots
	ws.idx = grow(ws.idx, len(p.dims))
	ws.rf32 = grow(ws.rf32, n)
	ws.ri32 = grow(ws.ri32, n)
	ws.ru8 = grow(ws.ru8, n)
	for len(ws.f32slots) < slots[classF32] {
		ws.f32slots = append(ws.f32slots, make([]float32, chunkLen))
	}
	for len(ws.i32slots) < slots[classI32] {
		ws.i32slots = append(ws.i32slots, make([]int32, chunkLen))
	}
	for len(ws.u8slots) < slots[classU8] {
		ws.u8slots = append(ws.u8slots, make([]uint8, chunkLen))
	}
	if len(ws.u16) < chunkLen {
		ws.u16 = make([]uint16, chunkLen)
	}
}
