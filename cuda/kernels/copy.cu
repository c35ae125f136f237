// Copy one strided view into another: element i of the row-major iteration
// over shape goes from src[src_off + sum(idx*src_stride)] to
// dst[dst_off + sum(idx*dst_stride)]. Elements are 1, 2 or 4 bytes and are
// moved as raw bits, so every dtype shares this kernel. The launch is a
// grid-stride loop, so any grid size covers any n. The file needs no CUDA
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

SF_KERNEL void sf_copy(char *dst, const char *src, sf_copy_params p) {
	long long step = (long long)gridDim.x * blockDim.x;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step) {
		long long d = p.dst_off, s = p.src_off, rest = i;
		for (int k = (int)p.rank - 1; k >= 0; k--) {
			long long x = rest % p.shape[k];
			rest /= p.shape[k];
			d += x * p.dst_stride[k];
			s += x * p.src_stride[k];
		}
		SF_CHECK(dst + d * p.elem, p.elem);
		SF_CHECK(src + s * p.elem, p.elem);
		switch (p.elem) {
		case 1:
			dst[d] = src[s];
			break;
		case 2:
			((unsigned short *)dst)[d] = ((const unsigned short *)src)[s];
			break;
		default:
			((unsigned int *)dst)[d] = ((const unsigned int *)src)[s];
			break;
		}
	}
}
