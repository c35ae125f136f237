// Copy one strided view into another: element i of the row-major iteration
// over shape goes from src[src_off + sum(idx*src_stride)] to
// dst[dst_off + sum(idx*dst_stride)]. Elements are 1, 2 or 4 bytes and are
// moved as raw bits, so every dtype shares this kernel. The launch is a
// grid-stride loop, so any grid size covers any n; a launch of at most one
// dimension below 2^31 elements loops with 32-bit positions and no
// division, moving 16 bytes at a time where both views are contiguous
// 4-byte elements at 16-byte aligned addresses. The file needs no CUDA
// header: NVRTC and clang compile it as it is, and the test double compiles
// it as host C++ with the thread indices defined and SF_CHECK checking that
// every access lies in an allocation.

#ifndef SF_KERNEL
#define SF_KERNEL extern "C" __global__
#endif

#ifndef SF_CHECK
#define SF_CHECK(ptr, bytes) ((void)0)
#endif

#define SF_COPY_MAX_RANK 8

typedef struct {
	long long n, rank, elem, dst_off, src_off;
	long long shape[SF_COPY_MAX_RANK];
	long long dst_stride[SF_COPY_MAX_RANK];
	long long src_stride[SF_COPY_MAX_RANK];
} sf_copy_params;

// sf_copy_elem moves element s of src to element d of dst.
static __device__ inline void sf_copy_elem(char *dst, const char *src, long long d, long long s, long long elem) {
	SF_CHECK(dst + d * elem, elem);
	SF_CHECK(src + s * elem, elem);
	switch (elem) {
	case 1:
		dst[d] = src[s];
		break;
	case 2:
		((unsigned short *)dst)[d] = ((const unsigned short *)src)[s];
		break;
	case 8:
		((unsigned long long *)dst)[d] = ((const unsigned long long *)src)[s];
		break;
	default:
		((unsigned int *)dst)[d] = ((const unsigned int *)src)[s];
		break;
	}
}

// sf_copy_u4 is 16 bytes moved by one load and one store.
typedef struct __attribute__((aligned(16))) {
	unsigned x, y, z, w;
} sf_copy_u4;

SF_KERNEL void sf_copy(char *dst, const char *src, sf_copy_params p) {
	if (p.rank <= 1 && p.n <= 0x7fffffff) {
		// At most one dimension of fewer than 2^31 elements: 32-bit
		// positions, no division.
		const unsigned step = gridDim.x * blockDim.x;
		unsigned first = 0;
		char *d4 = dst + p.dst_off * p.elem;
		const char *s4 = src + p.src_off * p.elem;
		if (p.elem == 4 && p.dst_stride[0] == 1 && p.src_stride[0] == 1 && ((unsigned long long)d4 & 15) == 0 &&
		    ((unsigned long long)s4 & 15) == 0) {
			// Both contiguous and 16-byte aligned: four elements a move,
			// then the last n % 4 one at a time.
			const unsigned n4 = (unsigned)p.n / 4;
			for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += step) {
				SF_CHECK((sf_copy_u4 *)d4 + i, 16);
				SF_CHECK((const sf_copy_u4 *)s4 + i, 16);
				const sf_copy_u4 *from = (const sf_copy_u4 *)s4 + i;
				sf_copy_u4 *to = (sf_copy_u4 *)d4 + i;
				// Four fields of one aligned struct: one vector load and store.
				const unsigned x = from->x, y = from->y, z = from->z, w = from->w;
				to->x = x;
				to->y = y;
				to->z = z;
				to->w = w;
			}
			first = n4 * 4;
		}
		for (unsigned i = first + blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned)p.n; i += step) {
			sf_copy_elem(dst, src, p.dst_off + (long long)i * p.dst_stride[0], p.src_off + (long long)i * p.src_stride[0], p.elem);
		}
		return;
	}
	long long step = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step) {
		long long d = p.dst_off, s = p.src_off, rest = i;
		for (int k = (int)p.rank - 1; k >= 0; k--) {
			long long x = rest % p.shape[k];
			rest /= p.shape[k];
			d += x * p.dst_stride[k];
			s += x * p.src_stride[k];
		}
		sf_copy_elem(dst, src, d, s, p.elem);
	}
}
