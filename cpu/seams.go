package cpu

import "github.com/shaderflow/shaderflow/tensor/device"

// seams is a snapshot of every seam, so that a kernel set can be saved and
// put back (the pure-Go set is kept for exact tests of the interpreter).
type seams struct {
	unary                   [device.NumOps]func(dst, x []float32)
	binary                  [device.NumOps]func(dst, x, y []float32)
	binaryScalar, scalarBin [device.NumOps]func(dst, x []float32, s float32)
	compareF                [device.NumOps]func(dst []uint8, x, y []float32)
	compareI                [device.NumOps]func(dst []uint8, x, y []int32)
	compareFS               [device.NumOps]func(dst []uint8, x []float32, s float32)
	where                   func(dst []float32, c []uint8, x, y []float32)
	whereElse               func(dst []float32, c []uint8, x []float32, s float32)
	whereThen               func(dst []float32, c []uint8, s float32, y []float32)
	fma                     func(dst, x, y, z []float32)
	sum                     func(x []float32) float64
	max, min                func(x []float32) float32
	argMax, argMin          func(x []float32) int
	halfTo, bf16To          func(dst []float32, src []uint16)
	toHalf, toBF16          func(dst []uint16, src []float32)
	gemm                    sgemmFunc
	name                    string
	modes                   [numModes]f32Kernels // modes[modeCached] repeats the float seams above
}

// currentSeams returns the seams in use.
func currentSeams() seams {
	return seams{
		unary: unaryF32, binary: binaryF32, binaryScalar: binaryF32Scalar, scalarBin: scalarBinaryF32,
		compareF: compareF32, compareI: compareI32, fma: fmaF32, sum: sumF32,
		compareFS: compareF32Scalar, where: whereF32, whereElse: whereF32Else, whereThen: whereF32Then,
		max: maxF32, min: minF32, argMax: argMaxF32, argMin: argMinF32,
		halfTo: halfToF32, bf16To: bf16ToF32, toHalf: f32ToHalf, toBF16: f32ToBF16,
		gemm: sgemm, name: simdName, modes: modeF32,
	}
}

// install makes s the seams in use. It must not run concurrently with a
// kernel.
func (s seams) install() {
	unaryF32, binaryF32, binaryF32Scalar, scalarBinaryF32 = s.unary, s.binary, s.binaryScalar, s.scalarBin
	compareF32, compareI32, fmaF32, sumF32 = s.compareF, s.compareI, s.fma, s.sum
	compareF32Scalar, whereF32, whereF32Else, whereF32Then = s.compareFS, s.where, s.whereElse, s.whereThen
	maxF32, minF32, argMaxF32, argMinF32 = s.max, s.min, s.argMax, s.argMin
	halfToF32, bf16ToF32, f32ToHalf, f32ToBF16 = s.halfTo, s.bf16To, s.toHalf, s.toBF16
	sgemm, simdName = s.gemm, s.name
	m := s.modes
	m[modeCached] = cachedF32()
	setModes(m)
}
