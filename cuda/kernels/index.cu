// index.cu: torch.gather (sf_gather) and torch.scatter_add_ (sf_scatter).
// One thread per element of Index (a grid-stride loop). The host orders the
// launch's dimensions so that dimension 0 is the indexed axis: element i of
// the row-major walk over shape reads Index at idx_off + sum(x*idx_stride),
// and addresses the other view (Out of a gather, Src of a scatter) the same
// way, and the data view (Src of a gather, Dst of a scatter) with Index's
// value in place of x[0]. An index outside [0, size) touches no data: the
// first such thread of the launches since the host last looked stores the
// launch's tag in status word 0 (compare-and-swap from 0) and the index in
// word 1, which the host reads back and reports as an error.
//
// The file needs no CUDA header: NVRTC has atomicAdd and atomicCAS built
// in, clang (-nocudainc) reaches them through NVVM builtins, and the test
// double, which compiles the file as host C++ and runs one thread at a time
// (no thread of a launch interrupts another here: the file has no
// barrier), needs no atomicity.

#ifndef SF_KERNEL
#define SF_KERNEL extern "C" __global__
#endif

#ifndef SF_CHECK
#define SF_CHECK(ptr, bytes) ((void)0)
#endif

#if defined(__CUDACC_RTC__)
#define sf_atomic_add_f32 atomicAdd
#define sf_atomic_cas_u32 atomicCAS
#elif defined(__CUDA__)
static __device__ inline float sf_atomic_add_f32(float *p, float v) {
	return __nvvm_atom_add_gen_f((volatile float *)p, v);
}
static __device__ inline unsigned sf_atomic_cas_u32(unsigned *p, unsigned cmp, unsigned v) {
	return (unsigned)__nvvm_atom_cas_gen_i((volatile int *)p, (int)cmp, (int)v);
}
#else
static inline float sf_atomic_add_f32(float *p, float v) {
	const float old = *p;
	*p = old + v;
	return old;
}
static inline unsigned sf_atomic_cas_u32(unsigned *p, unsigned cmp, unsigned v) {
	const unsigned old = *p;
	if (old == cmp) {
		*p = v;
	}
	return old;
}
#endif

#define SF_INDEX_MAX_RANK 8

// sf_index_params mirrors planIndexed's words (cuda/indexplan.go): views
// 0, 1 and 2 are the data, Index and the other view.
typedef struct {
	long long n, rank, size, elem, tag;
	unsigned long long status;
	long long shape[SF_INDEX_MAX_RANK];
	unsigned long long ptr[3];
	long long off[3];
	long long stride[3][SF_INDEX_MAX_RANK];
} sf_index_params;

// sf_index_at returns element i's offsets in Index (*ei), the other view
// (*eo) and the data view (*ed, leaving out dimension 0, the axis).
static __device__ inline void sf_index_at(const sf_index_params &p, long long i, long long *ed, long long *ei,
					  long long *eo) {
	long long d = p.off[0], x = p.off[1], o = p.off[2], rest = i;
	for (int k = (int)p.rank - 1; k >= 0; k--) {
		const long long c = rest % p.shape[k];
		rest /= p.shape[k];
		if (k > 0) {
			d += c * p.stride[0][k];
		}
		x += c * p.stride[1][k];
		o += c * p.stride[2][k];
	}
	*ed = d;
	*ei = x;
	*eo = o;
}

// sf_index_load returns Index's value at element ei, or reports it and
// returns -1 when it is outside [0, size).
static __device__ inline long long sf_index_load(const sf_index_params &p, long long ei) {
	const int *ix = (const int *)p.ptr[1];
	SF_CHECK(ix + ei, 4);
	const int v = ix[ei];
	if (v >= 0 && (long long)v < p.size) {
		return v;
	}
	unsigned *st = (unsigned *)p.status;
	SF_CHECK(st, 8);
	if (sf_atomic_cas_u32(st, 0u, (unsigned)p.tag) == 0u) {
		st[1] = (unsigned)v;
	}
	return -1;
}

// sf_gather copies elem-byte elements (every dtype as raw bits).
SF_KERNEL void sf_gather(const sf_index_params p) {
	const long long step = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step) {
		long long ed, ei, eo;
		sf_index_at(p, i, &ed, &ei, &eo);
		const long long v = sf_index_load(p, ei);
		if (v < 0) {
			continue;
		}
		ed += v * p.stride[0][0];
		const char *src = (const char *)p.ptr[0];
		char *out = (char *)p.ptr[2];
		SF_CHECK(src + ed * p.elem, p.elem);
		SF_CHECK(out + eo * p.elem, p.elem);
		switch (p.elem) {
		case 1:
			out[eo] = src[ed];
			break;
		case 2:
			((unsigned short *)out)[eo] = ((const unsigned short *)src)[ed];
			break;
		case 8:
			((unsigned long long *)out)[eo] = ((const unsigned long long *)src)[ed];
			break;
		default:
			((unsigned *)out)[eo] = ((const unsigned *)src)[ed];
			break;
		}
	}
}

// sf_scatter adds each float32 Src element into Dst atomically, since
// several elements of Index may name one element of Dst.
SF_KERNEL void sf_scatter(const sf_index_params p) {
	const long long step = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step) {
		long long ed, ei, eo;
		sf_index_at(p, i, &ed, &ei, &eo);
		const long long v = sf_index_load(p, ei);
		if (v < 0) {
			continue;
		}
		ed += v * p.stride[0][0];
		float *dst = (float *)p.ptr[0];
		const float *src = (const float *)p.ptr[2];
		SF_CHECK(dst + ed, 4);
		SF_CHECK(src + eo, 4);
		sf_atomic_add_f32(dst + ed, src[eo]);
	}
}
