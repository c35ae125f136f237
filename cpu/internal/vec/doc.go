// Package vec holds the CPU backend's vectorized float32 slice kernels:
// elementwise arithmetic and transcendentals, reductions, softmax rows and
// float16/bfloat16 conversions, in Go assembly for amd64 (AVX-512 and
// AVX2+FMA) with a pure-Go fallback for every function.
//
// # Levels and dispatch
//
// At start-up the package picks the best level the CPU and OS support
// (golang.org/x/sys/cpu): LevelAVX512 (AVX-512 F, BW, DQ, VL; zmm
// registers), else LevelAVX2 (AVX2, FMA, F16C, BMI2; ymm), else LevelGo.
// The environment variable SHADERFLOW_CPU_ISA=avx512|avx2|go, read once at
// start-up, caps the level (an unknown value is ignored and reported by
// EnvError). The build tag purego, and every architecture but amd64, give
// LevelGo only. SetLevel switches levels for tests and benchmarks; Current,
// Detected and Available report them.
//
// All three levels run the same algorithms (the pure-Go kernels in
// scalar.go are the specification the assembly generator follows step for
// step, with the same polynomial coefficients from coeffs.go), so results
// agree across levels to the last bit in the tests run so far; they are
// not promised to.
//
// # Conventions
//
// Slices passed together must have equal lengths; a mismatch panics with a
// message naming the function and the lengths. A destination may be the same
// slice as a source, but must not otherwise overlap one. The kernels do not
// spawn goroutines: callers split work into chunks (the parallel helper in
// the tests does this for benchmarks). Semantics are tensor/device's scalar
// functions (UnaryF32, BinaryF32, the dtype conversions): NaN in gives NaN
// out, Maximum and Minimum propagate NaN, Relu keeps NaN and maps -0 to +0.
//
// Elementwise maximum and minimum are named Maximum and Minimum (PyTorch's
// torch.maximum); Max and Min are the reductions.
//
// # Accuracy of the transcendentals
//
// Errors are measured against float64 evaluations of device.UnaryF32's
// formulas (for the GELUs in their non-cancelling forms, see below), in ulps
// of the exact result, over 2^24 evenly spaced float32 bit patterns of each
// sign of the swept range (`go test -run ErrorSweep -vec.sweep=16777216`),
// plus, for sin and cos, the floats nearest every multiple of pi/2 up to
// 2^20. The maxima were identical at all three levels. The tests assert
// the bounds in the last column on every run (with fewer points) and on
// random inputs of every test length.
//
//	function  range swept        max error measured   bound tested
//	Exp       |x| <= 105         0.99 ulp             1.5 ulp
//	Log       all x > 0          0.83 ulp             1 ulp
//	Tanh      |x| <= 12          2.59 ulp             3 ulp
//	Sigmoid   |x| <= 110         2.19 ulp             3 ulp
//	Erf       |x| <= 12          1.01 ulp             2 ulp
//	GeluErf   |x| <= 20          2.90 ulp             3.5 ulp
//	  (|x| < 3.99, table)        1.55 ulp (AVX2 2.47) 2 ulp (AVX2 3.5)
//	GeluTanh  |x| <= 35          2.44 ulp             3 ulp
//	Silu      |x| <= 110         2.58 ulp             3 ulp
//	Sin, Cos  |x| <= 2^20        1.81 ulp             2.5 ulp
//	Sqrt, Recip                  correctly rounded
//	Rsqrt                        <= 1.5 ulp (sqrt then divide, both rounded)
//
// Outside the swept ranges the functions saturate exactly (tanh to ±1,
// erf to ±1, sigmoid to 0 or 1, the GELUs and SiLU to x or 0). Where the
// result is subnormal (Exp, Sigmoid) the absolute error is at most one
// subnormal ulp (2^-149); where the GELUs' and SiLU's result is below
// 2^-118 in magnitude (x below about -80 for SiLU, -12 for the GELUs) the
// relative bound is replaced by an absolute error of at most 4e-43.
//
// Special values: Exp overflows to +Inf above 88.72 and underflows to 0
// (through the subnormals, correctly scaled) below -103.97; Log(0) = -Inf,
// Log(x<0) = NaN, Log(+Inf) = +Inf; subnormal inputs to Log are exact.
// Sin and Cos of |x| > 2^20, ±Inf or NaN are computed with the math package
// (the assembly stops at the first vector holding such a lane and resumes
// after it). GeluErf(-Inf), GeluTanh(-Inf) and Silu(-Inf) are NaN, like the
// contract's formulas x*(something that is 0).
//
// Methods (details in scalar.go): exp by Cody-Waite reduction x = n ln2 + r
// and a degree-6 minimax polynomial, scaled by 2^n in two steps (one
// rounding, subnormals included); log by exponent extraction, reduction to
// [sqrt(1/2), sqrt 2) and a degree-10 polynomial; tanh as E/(E+2) with
// E = expm1(2|x|) = 2^n t + (2^n - 1) from exp's parts, one formula for all
// x (one rounding fewer in E for small x, where n = 0, and no second
// branch to blend; the rounding of E+2 is what brought the maximum from
// 1.3 to 2.6 ulp); sigmoid and SiLU as num/(1+e)
// with e = exp(-|x|), never cancelling; erf by an odd polynomial below 0.875
// and 1 - erfc above, erfc(t) = exp(-t^2) z Q(z) with z = 1/(1+t/2) refined
// to double-float32 precision and t^2 carried as an exact pair; the exact
// GELU as max(x, 0) - |x|/2 erfc(|x|/sqrt 2) with the same erfc form over
// the whole range (1 + erf(x/sqrt 2) would cancel for negative x, and for
// positive x the subtraction is exact), except for |x| < 3.99 (Go and
// AVX-512), where it is x Phi(x) with Phi from a piecewise table: 32
// intervals of width 1/4, a degree-6 polynomial each (constant term split
// in two), each coefficient looked up for 16 lanes by one two-register
// permute (VPERMI2PS) with the tables' first halves held in registers for
// the whole loop; a vector with a lane outside that range also runs the
// erfc form and blends, lane by lane, so every lane's result depends on its
// own input only (AVX2, which has no such permute, uses the erfc form
// throughout); the tanh GELU as x sigmoid(v) with v = 2 sqrt(2/pi)(x +
// 0.044715 x^3) in double-float32 arithmetic, because the tail is
// ill-conditioned in v; sin and cos by a three-part pi/2 reduction with
// fused multiply-adds and degree-9/8 polynomials. Scale factors (x in SiLU
// and the tanh GELU, |x|/2 in the exact GELU) are folded into exp's final step so that the
// product is rounded once. Coefficients are fitted by tools/asmgen/vec/fit.
//
// Device.UnaryF32's GELU formulas cancel for negative x (1 + erf, 1 + tanh):
// its float32 results there are less accurate than these kernels'. The
// errors above are against the exact functions.
//
// # Reductions and rows
//
// Sum, Dot, SumSquares and SumSqDiff accumulate in float64 (two
// accumulators per vector) and return float64, so their error is a few
// float64 roundings of the partial sums. Max and Min propagate NaN; ArgMax
// and ArgMin return the first index of the extreme, a NaN counting as the
// extreme. SoftmaxRow and LogSoftmaxRow subtract the row maximum (exp(x-m)
// with x-m carried as an exact pair, so softmax is within 3 ulp of the
// exact value); a row that is all -Inf, or holds NaN or +Inf, gives NaN,
// like PyTorch.
//
// # Comparisons and selections
//
// Compare and CompareScalar write one byte per element (1 where the
// comparison holds, NaN comparing unordered); Select, SelectElse and
// SelectThen pick by such bytes, copying bits. They are what a fused
// program's comparisons and where run on (ReLU's backward is
// where(x > 0, g, 0)): on AVX-512 a comparison lands in an opmask register
// and a zero-masked byte move turns it into bytes, and a selection tests
// the bytes into an opmask and merges with a masked load.
//
// # Conversions
//
// Float32ToFloat16 and Float16ToFloat32 use F16C (VCVTPS2PH/VCVTPH2PS),
// bfloat16 uses integer rounding; all four are bit-identical to
// tensor/device's scalar functions, NaN payloads included (tested for all
// 65536 16-bit values and 900k float32 patterns around every rounding
// boundary).
//
// # Store modes
//
// Every elementwise kernel (the unary, binary, scalar and Fma kernels, and
// Copy) comes in three modes (Mode, Sets): Cached, the package functions;
// Prefetch, which prefetches its inputs 2 KiB ahead of the loads, for
// inputs streamed from memory; and Stream, which also writes whole vectors
// of dst with non-temporal stores (VMOVNTPS after a head that aligns dst,
// then SFENCE): no read of dst's lines before they are overwritten and no
// eviction of cached data, for destinations far larger than the caches.
// All three give identical results; Stream pays off only on data far
// larger than the caches (docs/measurements.md). The assembly
// of the three modes comes from one generator loop (storeMode in
// tools/asmgen/vec).
//
// # The fused-program machine
//
// RunFused runs a FusedProgram, a short elementwise chain (load an input,
// apply binary ops with inputs or constants in either order and unary ops,
// store to outputs with cached or streaming stores), over blocks of
// FusedBlock floats with the running value in registers, so that a chain
// of N ops reads each input and writes each output once per block with no
// pass through a buffer between ops; each op computes exactly what the
// package function of the same name computes. There are two: AVX-512 (four
// zmm accumulators) with the cheap unary ops plus exp, tanh and sigmoid
// (with more transcendentals the generator's register allocator gives
// up), and AVX2 (eight ymm accumulators) without the transcendentals,
// which AVX-512 also uses for the programs it can run (half the
// dispatches per float).
// Instructions are dispatched per block by a binary search over the
// opcodes, which every block repeats, so the branches are predicted. The
// CPU backend runs chains of two or more ops on it, which then cost about
// as much as one add (docs/measurements.md).
//
// # Bandwidth
//
// MeasureBandwidth runs a STREAM-like triad with the current level's
// kernel for the benchmark command. BenchmarkKernels and the opt-in
// TestBandwidthReport (-vec.report) compare the kernels with it, and
// TestComputeCost (-vec.report) gives each kernel's CPU time per element on
// cache-resident data. Note that a machine with a very large last-level
// cache (the development VMs report 480 MiB of L3) can hold the 10M-float
// benchmark arrays: use a footprint well beyond it (TestBandwidthBig,
// -vec.bwbytes) for a DRAM figure.
//
// # Generated code
//
// kernels_amd64.s, stubs_amd64.go and sets_amd64.go are generated by the avo
// program in tools/asmgen/vec (a separate module, so library users never
// download avo): run `go generate ./cpu/internal/vec`.
package vec
