// im2col.cu: the patch matrix of a convolution (sf_im2col) and its
// inverse sum (sf_col2im), which let a convolution run as matrix products
// (cuda/convgemm.go). With X of [N, C, in...] and taps k of the window:
//
//	sf_im2col: cols[n, c, k, y] = X[n, c, y*s - p + k*d], 0 in the padding
//	sf_col2im: out[n, c, x] = sum over (k, y) with x = y*s - p + k*d of cols[n, c, k, y]
//
// cols is contiguous [N, C, taps, outputs] (taps and outputs row-major over
// the spatial dimensions); X may have any strides; col2im's out is
// contiguous [N, C, in...]. One thread per element (a grid-stride loop),
// no shared memory; col2im gathers its terms, so no atomics.

#ifndef SF_KERNEL
#define SF_KERNEL extern "C" __global__
#endif

#ifndef SF_CHECK
#define SF_CHECK(ptr, bytes) ((void)0)
#endif

#define SF_COL_MAX_RANK 3

// sf_col_params mirrors planIm2col's words (cuda/convgemm.go): the elements
// of the launch, the spatial rank, channels, taps and output positions a
// channel, the spatial geometry (input, window, output, stride, padding,
// dilation), the addresses of X (or col2im's output) and cols, X's offset
// and strides (n, c, then spatial).
typedef struct {
	long long n, rank, channels, taps, outs;
	long long in[SF_COL_MAX_RANK], k[SF_COL_MAX_RANK], out[SF_COL_MAX_RANK];
	long long s[SF_COL_MAX_RANK], p[SF_COL_MAX_RANK], d[SF_COL_MAX_RANK];
	unsigned long long x, cols;
	long long x_off, x_st[2 + SF_COL_MAX_RANK];
} sf_col_params;

SF_KERNEL void sf_im2col(const sf_col_params p) {
	const long long step = (long long)gridDim.x * blockDim.x;
	const float *x = (const float *)p.x;
	float *cols = (float *)p.cols;
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step) {
		long long y = i % p.outs, tap = i / p.outs % p.taps;
		const long long nc = i / p.outs / p.taps;
		long long e = p.x_off + nc / p.channels * p.x_st[0] + nc % p.channels * p.x_st[1];
		bool inside = true;
		for (int r = (int)p.rank - 1; r >= 0; r--) {
			const long long yr = y % p.out[r], kr = tap % p.k[r];
			y /= p.out[r];
			tap /= p.k[r];
			const long long xr = yr * p.s[r] - p.p[r] + kr * p.d[r];
			inside = inside && xr >= 0 && xr < p.in[r];
			e += xr * p.x_st[2 + r];
		}
		float v = 0.0f;
		if (inside) {
			SF_CHECK(x + e, 4);
			v = x[e];
		}
		SF_CHECK(cols + i, 4);
		cols[i] = v;
	}
}

SF_KERNEL void sf_col2im(const sf_col_params p) {
	const long long step = (long long)gridDim.x * blockDim.x;
	const float *cols = (const float *)p.cols;
	float *out = (float *)p.x;
	long long ins = 1;
	for (int r = 0; r < (int)p.rank; r++) {
		ins *= p.in[r];
	}
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step) {
		const long long nc = i / ins;
		long long xs[SF_COL_MAX_RANK], rest = i % ins;
		for (int r = (int)p.rank - 1; r >= 0; r--) {
			xs[r] = rest % p.in[r];
			rest /= p.in[r];
		}
		const long long base = nc * p.taps * p.outs;
		float sum = 0.0f;
		for (long long tap = 0; tap < p.taps; tap++) {
			long long t = tap, y = 0, scale = 1;
			bool hit = true;
			for (int r = (int)p.rank - 1; r >= 0; r--) {
				const long long kr = t % p.k[r];
				t /= p.k[r];
				const long long q = xs[r] + p.p[r] - kr * p.d[r];
				const long long yr = q / p.s[r];
				hit = hit && q >= 0 && q % p.s[r] == 0 && yr < p.out[r];
				y += yr * scale;
				scale *= p.out[r];
			}
			if (hit) {
				SF_CHECK(cols + base + tap * p.outs + y, 4);
				sum += cols[base + tap * p.outs + y];
			}
		}
		SF_CHECK(out + i, 4);
		out[i] = sum;
	}
}
