package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/gemm"
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// The SIMD layer: at init the seams of kernels_f32.go and sgemm.go are
// pointed at the vectorized kernels of cpu/internal/vec and the packed
// matrix multiply of cpu/internal/gemm. Both packages choose their
// instruction set once (AVX-512, AVX2+FMA, NEON on arm64, or pure Go) from
// the CPU, the purego build tag and SHADERFLOW_CPU_ISA, so the seams follow
// that choice.
//
// Seams without a vec counterpart keep their pure-Go kernels: Sign, Floor,
// Ceil and Pow, the int32 comparisons, and the binary ops with a scalar on
// the left whose result depends on operand order (Max and Min differ on
// signed zeros).

// goSeams is the pure-Go kernel set, saved before init replaces it; tests
// use it to check the interpreter exactly against scalar references.
var goSeams seams

func init() {
	installGo()
	goSeams = currentSeams()
	installSIMD()
}

// Vectorized reports whether the CPU backend runs op on float32 values with
// a SIMD kernel (where the CPU has one) rather than a scalar Go loop.
func Vectorized(op device.Op) bool {
	if op >= device.NumOps {
		return false
	}
	s := &vec.Sets[vec.Cached]
	_, c := vecCmp[op]
	return s.Unary[op] != nil || s.Binary[op] != nil || c || op == device.OpFma || op == device.OpWhere
}

// vecKernels returns the float slice kernels of vec's kernel set s: the
// ops s has, and base's kernels for the others.
func vecKernels(s *vec.Set, base f32Kernels) f32Kernels {
	k := base
	for op := range device.NumOps {
		if f := s.Unary[op]; f != nil {
			k.unary[op] = trimmed1(f)
		}
		if f := s.Binary[op]; f != nil {
			k.binary[op] = trimmed2(f)
			k.binaryScalar[op] = trimmedS(s.Scalar[op])
		}
		// op(s, x[i]): Add and Mul commute exactly; Max and Min do not
		// (signed zeros), so they keep base's kernels.
		switch {
		case s.ScalarLeft[op] != nil:
			k.scalarBinary[op] = trimmedS(s.ScalarLeft[op])
		case op == device.OpAdd || op == device.OpMul:
			k.scalarBinary[op] = trimmedS(s.Scalar[op])
		}
	}
	fma := s.Fma
	k.fma = func(dst, x, y, z []float32) { fma(dst, x[:len(dst)], y[:len(dst)], z[:len(dst)]) }
	return k
}

// vecCmp maps the comparisons to vec's.
var vecCmp = map[device.Op]vec.CmpOp{
	device.OpEq: vec.CmpEq, device.OpNe: vec.CmpNe, device.OpLt: vec.CmpLt,
	device.OpLe: vec.CmpLe, device.OpGt: vec.CmpGt, device.OpGe: vec.CmpGe,
}

// installSIMD points the seams at the vec and gemm kernels.
func installSIMD() {
	base := cachedF32()
	setModes([numModes]f32Kernels{
		modeCached:   vecKernels(&vec.Sets[vec.Cached], base),
		modePrefetch: vecKernels(&vec.Sets[vec.Prefetch], base),
		modeStream:   vecKernels(&vec.Sets[vec.Stream], base),
	})
	for op, c := range vecCmp {
		compareF32[op] = func(dst []uint8, x, y []float32) { vec.Compare(c, dst, x[:len(dst)], y[:len(dst)]) }
		compareF32Scalar[op] = func(dst []uint8, x []float32, s float32) { vec.CompareScalar(c, dst, x[:len(dst)], s) }
	}
	whereF32 = func(dst []float32, c []uint8, x, y []float32) {
		vec.Select(dst, c[:len(dst)], x[:len(dst)], y[:len(dst)])
	}
	whereF32Else = func(dst []float32, c []uint8, x []float32, s float32) {
		vec.SelectElse(dst, c[:len(dst)], x[:len(dst)], s)
	}
	whereF32Then = func(dst []float32, c []uint8, s float32, y []float32) {
		vec.SelectThen(dst, c[:len(dst)], s, y[:len(dst)])
	}
	sumF32 = vec.Sum
	halfToF32 = func(dst []float32, src []uint16) { vec.Float16ToFloat32(dst, src[:len(dst)]) }
	f32ToHalf = func(dst []uint16, src []float32) { vec.Float32ToFloat16(dst, src[:len(dst)]) }
	bf16ToF32 = func(dst []float32, src []uint16) { vec.BFloat16ToFloat32(dst, src[:len(dst)]) }
	f32ToBF16 = func(dst []uint16, src []float32) { vec.Float32ToBFloat16(dst, src[:len(dst)]) }
	maxF32, minF32 = vec.Max, vec.Min
	argMaxF32, argMinF32 = vec.ArgMax, vec.ArgMin
	sgemm = gemm.SgemmThreads
	sgemmTaps = nil
	if gemm.TapsReady() {
		sgemmTaps = gemm.SgemmTaps
	}
	simdName = ISA()
}

// The vec kernels require equal lengths; the seams allow longer sources.
func trimmed1(f func(dst, x []float32)) func(dst, x []float32) {
	return func(dst, x []float32) { f(dst, x[:len(dst)]) }
}

func trimmed2(f func(dst, x, y []float32)) func(dst, x, y []float32) {
	return func(dst, x, y []float32) { f(dst, x[:len(dst)], y[:len(dst)]) }
}

func trimmedS(f func(dst, x []float32, s float32)) func(dst, x []float32, s float32) {
	return func(dst, x []float32, s float32) { f(dst, x[:len(dst)], s) }
}

// ISA names the instruction set the CPU backend's kernels use: "avx512",
// "avx2", "neon" or "go", as chosen from the CPU, the purego build tag and
// the environment variable SHADERFLOW_CPU_ISA. When the elementwise kernels and
// the matrix multiply run at different levels it names both, e.g.
// "avx512 (gemm avx2)".
func ISA() string {
	v, g := vec.Current().String(), gemm.ISA()
	if v == g {
		return v
	}
	return v + " (gemm " + g + ")"
}
