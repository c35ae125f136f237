package cuda

import (
	"fmt"
	"strings"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// rdBlockEntry is the block-cooperative reduction kernel's entry point.
const rdBlockEntry = "sf_reduce_block"

// rdThreads is the block kernel's block size, a power of two.
const rdThreads = 256

// The block kernel's stages (the parameter word stage).
const (
	rdWhole = iota // reduce every output's elements, then run the epilogue
	rdPart         // reduce one part of each output's elements into scratch
	rdFold         // fold each output's parts from scratch, then run the epilogue
)

// shuffleSource defines sf_shfl_xor(v, d), the value of v in the lane
// whose index is this lane's xor d, for float and long long: NVRTC's
// __shfl_xor_sync; clang without CUDA's headers (the PTX checks) through
// NVVM's builtins; the test double's host prelude, which exchanges the
// values between two block-wide barriers (so every thread of the block
// must call it at the same points, as the block kernel's uniform loop
// does).
const shuffleSource = `#if defined(__CUDACC_RTC__) || !defined(__CUDA__)
SF_FN float sf_shfl_xor(float v, int d) { return __shfl_xor_sync(0xffffffffu, v, d); }
SF_FN long long sf_shfl_xor(long long v, int d) { return __shfl_xor_sync(0xffffffffu, v, d); }
#else
SF_FN float sf_shfl_xor(float v, int d) { return __nvvm_shfl_sync_bfly_f32(0xffffffffu, v, d, 0x1f); }
SF_FN long long sf_shfl_xor(long long v, int d) {
	const unsigned lo = (unsigned)__nvvm_shfl_sync_bfly_i32(0xffffffffu, (int)v, d, 0x1f);
	const unsigned hi = (unsigned)__nvvm_shfl_sync_bfly_i32(0xffffffffu, (int)(v >> 32), d, 0x1f);
	return (long long)(((unsigned long long)hi << 32) | lo);
}
#endif

`

// rdBlockSignature is the module key of k's block kernel: its serial
// kernel's signature (rdSignature) under another leading byte.
func rdBlockSignature(k *device.ReduceKernel) string { return "R" + rdSignature(k)[1:] }

// renderReduceBlock returns the CUDA C of a validated reduction's block
// kernel, for long reductions. Each block of rdThreads threads takes p.groups
// consecutive outputs at a time (grid-stride over the launch's outputs and,
// split into p.parts, their elements): thread t serves output t % groups
// and walks every (rdThreads/groups)-th element of its part, running the
// prologue and folding as the serial kernel does; then the block combines
// the threads' partial results in a shared-memory tree (sf_rd_combine on
// disjoint element sets, so an arg reduction keeps the first extreme) and
// one thread per output runs the epilogue and stores (stage rdWhole) or
// stores the partial result in scratch (rdPart). Stage rdFold reads p.rn
// partial results an output from scratch instead of running the prologue.
// Only the signature shapes the text.
func renderReduceBlock(k *device.ReduceKernel) string {
	pro, epi, l := rdPrograms(k)
	var b strings.Builder
	writeRdHeader(&b, k, l)
	b.WriteString(sharedMacro)
	fmt.Fprintf(&b, "#define SF_RD_THREADS %d\n#define SF_RD_PART %d\n#define SF_RD_FOLD %d\n\n", rdThreads, rdPart, rdFold)
	b.WriteString("SF_FN long long sf_rd_ld_arg(unsigned long long a, long long e) {\n" +
		"\tSF_CHECK((const long long *)a + e, 8);\n\treturn ((const long long *)a)[e];\n}\n\n")
	b.WriteString(shuffleSource)
	// For a reduction that is no arg reduction, the index is a dead local.
	shArg, partnerArg, partialArg := "arg", "-1", "r"
	if isArgReduce(k.Op) {
		shArg, partnerArg, partialArg = "sf_arg[t]", "sf_arg[t + s * G]", "sf_rd_ld_arg(p.scratch_arg, i * p.rn + r)"
	}
	fmt.Fprintf(&b, "extern \"C\" __global__ void %s(const sf_rd_params p) {\n", rdBlockEntry)
	b.WriteString("\t__shared__ float sf_acc[SF_RD_THREADS];\n")
	if isArgReduce(k.Op) {
		b.WriteString("\t__shared__ long long sf_arg[SF_RD_THREADS];\n")
	}
	b.WriteString("\tconst int t = threadIdx.x, G = (int)p.groups, L = SF_RD_THREADS / G, g = t % G, q = t / G;\n")
	b.WriteString("\tconst long long work = (p.n + G - 1) / G * p.parts;\n")
	b.WriteString("\tfor (long long w = blockIdx.x; w < work; w += gridDim.x) {\n")
	b.WriteString("\t\tconst long long i = w / p.parts * G + g, part = w % p.parts;\n")
	fmt.Fprintf(&b, "\t\tfloat acc = %s;\n\t\tlong long arg = -1;\n", rdInit[k.Op])
	b.WriteString("\t\tif (i < p.n && p.stage == SF_RD_FOLD) {\n")
	b.WriteString("\t\t\tfor (long long r = q; r < p.rn; r += L) {\n")
	fmt.Fprintf(&b, "\t\t\t\tsf_rd_combine(acc, arg, sf_ld_f32(p.scratch, i * p.rn + r), %s);\n\t\t\t}\n", partialArg)
	b.WriteString("\t\t} else if (i < p.n) {\n")
	writeOutOffsets(&b, "\t\t\t", "i", l.nin, 0)
	b.WriteString("\t\t\tconst long long opos = p.base + i;\n")
	writeRdLoop(&b, "\t\t\t", k, pro, "part * L + q", "p.parts * L")
	b.WriteString("\t\t}\n")
	b.WriteString("\t\tsf_acc[t] = acc;\n")
	if isArgReduce(k.Op) {
		b.WriteString("\t\tsf_arg[t] = arg;\n")
	}
	// The tree's levels whose partners lie in other warps go through
	// shared memory with a barrier each; the last ones (partners s * G < 32
	// lanes apart, in the same warp) through warp shuffles of the same
	// pairs, so results are the same either way.
	b.WriteString("\t\t__syncthreads();\n\t\tint s = L / 2;\n\t\tfor (; s > 0 && s * G >= 32; s >>= 1) {\n\t\t\tif (q < s) {\n")
	fmt.Fprintf(&b, "\t\t\t\tsf_rd_combine(sf_acc[t], %s, sf_acc[t + s * G], %s);\n\t\t\t}\n\t\t\t__syncthreads();\n\t\t}\n", shArg, partnerArg)
	b.WriteString("\t\tacc = sf_acc[t];\n")
	shflArg := "-1"
	if isArgReduce(k.Op) {
		b.WriteString("\t\targ = sf_arg[t];\n")
		shflArg = "sf_shfl_xor(arg, s * G)"
	}
	b.WriteString("\t\tfor (; s > 0; s >>= 1) {\n\t\t\tconst float v = sf_shfl_xor(acc, s * G);\n")
	fmt.Fprintf(&b, "\t\t\tconst long long a = %s;\n\t\t\tif (q < s) {\n\t\t\t\tsf_rd_combine(acc, arg, v, a);\n\t\t\t}\n\t\t}\n", shflArg)
	b.WriteString("\t\tif (q == 0 && i < p.n) {\n")
	b.WriteString("\t\t\tif (p.stage == SF_RD_PART) {\n\t\t\t\tsf_st_f32(p.scratch, i * p.parts + part, acc);\n")
	if isArgReduce(k.Op) {
		b.WriteString("\t\t\t\tSF_CHECK((long long *)p.scratch_arg + i * p.parts + part, 8);\n" +
			"\t\t\t\t((long long *)p.scratch_arg)[i * p.parts + part] = arg;\n")
	}
	b.WriteString("\t\t\t} else {\n")
	writeOutOffsets(&b, "\t\t\t\t", "i", 0, l.nep)
	b.WriteString("\t\t\t\tconst long long opos = p.base + i;\n")
	writeRdEpilogue(&b, "\t\t\t\t", "i", k, epi)
	b.WriteString("\t\t\t}\n\t\t}\n\t\t__syncthreads();\n\t}\n}\n")
	return b.String()
}
