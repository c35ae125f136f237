package cuda

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// mmEntry is the generated matrix product kernel's entry point.
const mmEntry = "sf_matmul"

// A block of mmThreads threads computes one tile of a product (see
// mmTiling), stepping through K through shared memory.
const (
	mmThreads = 256
	// mmPad pads each row of the shared tiles so that loads running along
	// K (an operand whose K stride is the unit one) store to spread banks.
	mmPad = 4
)

// mmTiling is a generated matrix product's tile: m x n elements of one
// product, k of the depth a step; thread (ty, tx) of the 16x16 block
// computes the (m/16) x (n/16) elements at rows ty+16i and columns tx+16j,
// so a warp's shared-memory reads hit distinct banks or broadcast and its
// stores are consecutive.
type mmTiling struct{ m, n, k int }

var (
	// mmSmall serves products of few tiles: 4x4 elements a thread.
	mmSmall = mmTiling{64, 64, 16}
	// mmLarge serves products of many tiles: 8x8 elements a thread read
	// 16 shared values for 64 multiply-adds (twice mmSmall's ratio).
	mmLarge = mmTiling{128, 128, 8}
	// mmLargeTiles is the fewest mmLarge tiles of a product that takes
	// them, enough to keep a large GPU's multiprocessors busy.
	mmLargeTiles = 256
)

// mmTilingOf returns the tiling of k's product.
func mmTilingOf(k *device.MatMulKernel) mmTiling {
	batch := device.NumElements(k.Batch)
	if batch*((k.M+mmLarge.m-1)/mmLarge.m)*((k.N+mmLarge.n-1)/mmLarge.n) >= mmLargeTiles {
		return mmLarge
	}
	return mmSmall
}

// mmLayout is the shape of a generated matrix product's parameter struct,
// 64-bit words: n (tiles this launch), rank, base (the batch index this
// launch starts at), bshape[8] (batch dimensions); M, N, K, the tile
// counts along M and N; A's address, offset, M and K strides, whether its
// K stride is the unit one, batch strides; B's address, offset, K and N
// strides, whether its N stride is the unit one, batch strides; the
// epilogue inputs' addresses, offsets, M and N strides and batch strides;
// the outputs' addresses and offsets; the epilogue's immediates.
type mmLayout struct{ nep, nout, nimm int }

// Word offsets of the parameter struct's fields.
func (l mmLayout) dims() int     { return 3 + ewMaxRank }
func (l mmLayout) a() int        { return l.dims() + 5 }
func (l mmLayout) b() int        { return l.a() + 5 + ewMaxRank }
func (l mmLayout) epPtr() int    { return l.b() + 5 + ewMaxRank }
func (l mmLayout) epOff() int    { return l.epPtr() + max(l.nep, 1) }
func (l mmLayout) epSM() int     { return l.epOff() + max(l.nep, 1) }
func (l mmLayout) epSN() int     { return l.epSM() + max(l.nep, 1) }
func (l mmLayout) epStride() int { return l.epSN() + max(l.nep, 1) }
func (l mmLayout) outPtr() int   { return l.epStride() + max(l.nep, 1)*ewMaxRank }
func (l mmLayout) outOff() int   { return l.outPtr() + max(l.nout, 1) }
func (l mmLayout) imm() int      { return l.outOff() + max(l.nout, 1) }
func (l mmLayout) words() int    { return l.imm() + max(l.nimm, 1) }

// mmLayoutOf returns the parameter layout of k.
func mmLayoutOf(k *device.MatMulKernel) mmLayout {
	_, nimm := immSlots(k.Epilogue)
	return mmLayout{nep: len(k.EpilogueInputs), nout: len(k.Outputs), nimm: nimm}
}

// mmSignature is what a generated matrix product depends on: the tiling,
// the epilogue without constants and seeds and the dtypes of its inputs and outputs (A
// and B are always float32). Products of equal signatures share a module,
// whatever their shapes, strides, offsets, constants and seeds.
func mmSignature(k *device.MatMulKernel) string {
	return string(appendMmSignature(nil, k))
}

// appendMmSignature appends k's signature (mmSignature) to b.
func appendMmSignature(b []byte, k *device.MatMulKernel) []byte {
	b = append(b, 'm', byte(mmTilingOf(k).m))
	for _, vs := range [][]device.View{k.EpilogueInputs, k.Outputs} {
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = append(b, byte(v.DType))
		}
	}
	return appendProgram(b, k.Epilogue)
}

// appendMmKey appends to b everything of k but its buffers, and the
// cuBLAS policy use: the signature, the batch shape, M, N and K, the
// dtypes of A and B, each view's offset, shape and strides, and the
// epilogue's constants and seeds, on which alone validation but for the
// buffer checks, the choice of cuBLAS, planning and the module depend.
func appendMmKey(b []byte, k *device.MatMulKernel, use blasPolicy) []byte {
	b = append(appendInts(appendMmSignature(b, k), k.Batch), byte(use), byte(k.A.DType), byte(k.B.DType))
	b = appendInts(b, []int{k.M, k.N, k.K})
	ab := [2]device.View{k.A, k.B}
	return appendImms(appendViewsKey(b, ab[:], k.EpilogueInputs, k.Outputs), k.Epilogue)
}

// mmKernelSource is the generated matrix product's fixed part, after its
// parameter struct: tile loads through any strides (zero outside the
// matrices, the threads of a load running along the operand's unit-stride
// dimension when it has one), the float32 FMA accumulation in K order and
// the loop over the launch's tiles. Its three verbs are the epilogue
// inputs' offset declarations, their steps along each batch dimension, and
// the per-element epilogue.
const mmKernelSource = `
extern "C" __global__ void sf_matmul(const sf_mm_params p) {
	__shared__ float as[SF_MM_BK][SF_MM_BM + SF_MM_PAD];
	__shared__ float bs[SF_MM_BK][SF_MM_BN + SF_MM_PAD];
	const int tid = (int)threadIdx.x, tx = tid %% 16, ty = tid / 16;
	const long long per = p.tiles_m * p.tiles_n;
	for (long long t = blockIdx.x; t < p.n; t += gridDim.x) {
		const long long bi = t / per, rest = t %% per;
		const long long m0 = rest / p.tiles_n * SF_MM_BM, n0 = rest %% p.tiles_n * SF_MM_BN;
		long long ea = p.a_off, eb = p.b_off;
%s		long long rb = bi;
		for (int d = (int)p.rank - 1; d >= 0; d--) {
			const long long x = rb %% p.bshape[d];
			rb /= p.bshape[d];
			ea += x * p.a_bstride[d];
			eb += x * p.b_bstride[d];
%s		}
		float acc[SF_MM_TM][SF_MM_TN];
#pragma unroll
		for (int i = 0; i < SF_MM_TM; i++) {
#pragma unroll
			for (int j = 0; j < SF_MM_TN; j++) {
				acc[i][j] = 0.0f;
			}
		}
		for (long long k0 = 0; k0 < p.K; k0 += SF_MM_BK) {
#pragma unroll
			for (int q = 0; q < SF_MM_BM * SF_MM_BK / SF_MM_THREADS; q++) {
				const int e = tid + SF_MM_THREADS * q;
				const int i = p.a_kfast ? e / SF_MM_BK : e %% SF_MM_BM;
				const int kk = p.a_kfast ? e %% SF_MM_BK : e / SF_MM_BM;
				const long long gm = m0 + i, gk = k0 + kk;
				as[kk][i] = gm < p.M && gk < p.K ? sf_ld_f32(p.a, ea + gm * p.a_sm + gk * p.a_sk) : 0.0f;
			}
#pragma unroll
			for (int q = 0; q < SF_MM_BN * SF_MM_BK / SF_MM_THREADS; q++) {
				const int e = tid + SF_MM_THREADS * q;
				const int j = p.b_nfast ? e %% SF_MM_BN : e / SF_MM_BK;
				const int kk = p.b_nfast ? e / SF_MM_BN : e %% SF_MM_BK;
				const long long gn = n0 + j, gk = k0 + kk;
				bs[kk][j] = gn < p.N && gk < p.K ? sf_ld_f32(p.b, eb + gk * p.b_sk + gn * p.b_sn) : 0.0f;
			}
			__syncthreads();
#pragma unroll
			for (int kk = 0; kk < SF_MM_BK; kk++) {
				float av[SF_MM_TM], bv[SF_MM_TN];
#pragma unroll
				for (int i = 0; i < SF_MM_TM; i++) {
					av[i] = as[kk][ty + 16 * i];
				}
#pragma unroll
				for (int j = 0; j < SF_MM_TN; j++) {
					bv[j] = bs[kk][tx + 16 * j];
				}
#pragma unroll
				for (int i = 0; i < SF_MM_TM; i++) {
#pragma unroll
					for (int j = 0; j < SF_MM_TN; j++) {
						acc[i][j] = SF_MATH(fmaf)(av[i], bv[j], acc[i][j]);
					}
				}
			}
			__syncthreads();
		}
#pragma unroll
		for (int i = 0; i < SF_MM_TM; i++) {
#pragma unroll
			for (int j = 0; j < SF_MM_TN; j++) {
				const long long gm = m0 + ty + 16 * i, gn = n0 + tx + 16 * j;
				if (gm < p.M && gn < p.N) {
					const long long o = bi * p.M * p.N + gm * p.N + gn;
%s				}
			}
		}
	}
}
`

// renderMatMul returns the CUDA C of a validated matrix product: ops.cuh,
// the tiling constants, the parameter struct and sf_matmul, whose blocks
// loop over the launch's tiles (batch-major, then M, then N), accumulate
// each tile's elements (4x4 or 8x8 a thread, mmTilingOf) in float32 with FMA in K order, and run
// the epilogue per element (input 0: the dot product; position: the
// element's in Batch ++ [M, N]) storing every output with its dtype's
// conversion. Only the signature (mmSignature) shapes the text.
func renderMatMul(k *device.MatMulKernel) string {
	l := mmLayoutOf(k)
	slots, _ := immSlots(k.Epilogue)
	ne, no := max(l.nep, 1), max(l.nout, 1)
	var b strings.Builder
	b.WriteString(opsSource)
	fmt.Fprintf(&b, "\n// A generated matrix product: %d epilogue inputs, %d outputs, %d epilogue instructions.\n",
		l.nep, l.nout, len(k.Epilogue.Code))
	b.WriteString(sharedMacro)
	tl := mmTilingOf(k)
	fmt.Fprintf(&b, "#define SF_MM_THREADS %d\n#define SF_MM_BM %d\n#define SF_MM_BN %d\n#define SF_MM_BK %d\n#define SF_MM_TM %d\n#define SF_MM_TN %d\n#define SF_MM_PAD %d\n",
		mmThreads, tl.m, tl.n, tl.k, tl.m/16, tl.n/16, mmPad)
	fmt.Fprintf(&b, "struct sf_mm_params {\n\tlong long n, rank, base;\n\tlong long bshape[%d];\n", ewMaxRank)
	b.WriteString("\tlong long M, N, K, tiles_m, tiles_n;\n")
	fmt.Fprintf(&b, "\tunsigned long long a;\n\tlong long a_off, a_sm, a_sk, a_kfast;\n\tlong long a_bstride[%d];\n", ewMaxRank)
	fmt.Fprintf(&b, "\tunsigned long long b;\n\tlong long b_off, b_sk, b_sn, b_nfast;\n\tlong long b_bstride[%d];\n", ewMaxRank)
	fmt.Fprintf(&b, "\tunsigned long long ep[%d];\n\tlong long ep_off[%d], ep_sm[%d], ep_sn[%d];\n\tlong long ep_bstride[%d][%d];\n",
		ne, ne, ne, ne, ne, ewMaxRank)
	fmt.Fprintf(&b, "\tunsigned long long out[%d];\n\tlong long out_off[%d];\n\tlong long imm[%d];\n};\n",
		no, no, max(l.nimm, 1))
	// The epilogue inputs' batch offsets (f), moved along each batch dimension.
	var decl, step strings.Builder
	for j := 0; j < l.nep; j++ {
		fmt.Fprintf(&decl, "\t\tlong long f%d = p.ep_off[%d];\n", j, j)
		fmt.Fprintf(&step, "\t\t\tf%d += x * p.ep_bstride[%d][d];\n", j, j)
	}
	var epi strings.Builder
	const in = "\t\t\t\t\t"
	if usesPosition(k.Epilogue) {
		epi.WriteString(in + "const long long pos = p.base * p.M * p.N + o;\n")
	}
	writeProgram(&epi, in, k.Epilogue, "r", slots, func(j int) string {
		if j == 0 {
			return "acc[i][j]"
		}
		return fmt.Sprintf("sf_ld_%s(p.ep[%d], f%d + gm * p.ep_sm[%d] + gn * p.ep_sn[%d])",
			dtypeSuffix[k.EpilogueInputs[j-1].DType], j-1, j-1, j-1, j-1)
	})
	for j, r := range k.Epilogue.Outputs {
		fmt.Fprintf(&epi, "%ssf_st_%s(p.out[%d], p.out_off[%d] + o, r%d);\n", in, dtypeSuffix[k.Outputs[j].DType], j, j, r)
	}
	fmt.Fprintf(&b, mmKernelSource, decl.String(), step.String(), epi.String())
	return b.String()
}
