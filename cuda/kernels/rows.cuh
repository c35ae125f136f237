// rows.cuh: what the row kernels (softmax.cu, normalize.cu) share: their
// parameter words, the load of a row into registers, the combination of a
// value over a row's threads, and where a row starts. The backend prepends
// ops.cuh, the __shared__ macro and sf_shfl_xor (cuda/rowsplan.go).
//
// A row is served by W threads, W a power of two (p.wpr): for rows of at
// most 32*SF_ROW_PER elements W is at most 32 (a warp or part of one, so a
// block of blockDim.x threads serves blockDim.x/W rows and consecutive
// lanes read consecutive elements), and for longer rows W is the whole
// block (256, 512 or 1024 threads, the host's choice). Thread `lane` of a
// row takes elements lane, lane+W, lane+2W, ... Rows of at most
// W*SF_ROW_PER elements are read from global memory once, into registers;
// longer rows are read again for each pass over them.
//
// Rows are walked in 64-bit by a grid-stride loop over groups of
// blockDim.x/W rows, so any grid covers any number of rows. Every thread of
// a block runs the same iterations of that loop and reaches every shuffle
// and barrier, whether or not it has a row (the test double's shuffles
// meet at block-wide barriers).

// SF_KERNEL declares an entry point for blocks of up to 1024 threads, so
// that the compiler keeps each thread's registers within what such a block
// may have (64 a thread); the test double's host compiler has no such
// bound.
#if defined(__CUDACC_RTC__)
#define SF_KERNEL extern "C" __global__ __launch_bounds__(1024)
#elif defined(__CUDA__)
#define SF_KERNEL extern "C" __global__ __attribute__((launch_bounds(1024)))
#else
#define SF_KERNEL extern "C" __global__
#endif

#define SF_ROW_MAX_RANK 8

// SF_ROW_PER is the elements a thread keeps in registers a view;
// SF_ROW_WARPS the most warps a block may have (its shared slots).
#define SF_ROW_PER 16
#define SF_ROW_WARPS 32

// sf_rows_params mirrors planRows's words (cuda/rowsplan.go): the launch's
// rows, the rank of the row dimensions, the row length, the kernel's
// argument (a softmax's log, 0 or 1; a normalization's eps), W, then the
// inputs' addresses (In, or X or Y, and G), Out's, the inputs' offsets and
// strides along the row, the offset of the launch's first row in Out, and
// the row dimensions' shape and each input's strides (outermost first).
typedef struct {
	long long rows, rank, cols;
	union {
		long long log;
		double eps;
	};
	long long wpr;
	unsigned long long in[2], out;
	long long in_off[2], col_stride[2], out_off;
	long long shape[SF_ROW_MAX_RANK];
	long long stride[2][SF_ROW_MAX_RANK];
} sf_rows_params;

// sf_row_combine folds partial maxima (is_max) or sums.
SF_FN float sf_row_combine(float a, float b, bool is_max) { return is_max ? op_max(a, b) : a + b; }

// sf_row_all combines v over the W threads of each row and returns the
// result to all of them: a butterfly of xor shuffles inside the warp (each
// step pairs the same two values on both sides, so every thread computes
// the same result), then, where a row spans the block's warps, each warp's
// result through shared memory, folded in warp order. Every thread of the
// block must call it.
SF_FN float sf_row_all(float v, int W, bool is_max, float *slots) {
	for (int d = (W < 32 ? W : 32) / 2; d > 0; d >>= 1) {
		v = sf_row_combine(v, sf_shfl_xor(v, d), is_max);
	}
	if (W > 32) {
		const int warp = threadIdx.x / 32, warps = W / 32;
		if (threadIdx.x % 32 == 0) {
			slots[warp] = v;
		}
		__syncthreads();
		v = slots[0];
		for (int i = 1; i < warps; i++) {
			v = sf_row_combine(v, slots[i], is_max);
		}
		__syncthreads(); // every thread has read the slots before they are reused
	}
	return v;
}

// sf_row_sum returns the sum of v over the W threads of each row.
SF_FN float sf_row_sum(float v, int W, float *slots) { return sf_row_all(v, W, false, slots); }

// sf_row_sum2 sums a and b over the W threads of each row at once: the
// butterfly exchanges both as one 64-bit word (one shuffle a step), and a
// block-wide row uses two slots a warp (slots holds 2*SF_ROW_WARPS). Every
// thread of the block must call it.
SF_FN void sf_row_sum2(float &a, float &b, int W, float *slots) {
	for (int d = (W < 32 ? W : 32) / 2; d > 0; d >>= 1) {
		const long long w = (long long)(((unsigned long long)sf_f32_bits(b) << 32) | sf_f32_bits(a));
		const unsigned long long o = (unsigned long long)sf_shfl_xor(w, d);
		a += sf_bits_f32((unsigned)o);
		b += sf_bits_f32((unsigned)(o >> 32));
	}
	if (W > 32) {
		const int warp = threadIdx.x / 32, warps = W / 32;
		if (threadIdx.x % 32 == 0) {
			slots[warp] = a;
			slots[SF_ROW_WARPS + warp] = b;
		}
		__syncthreads();
		a = slots[0];
		b = slots[SF_ROW_WARPS];
		for (int i = 1; i < warps; i++) {
			a += slots[i];
			b += slots[SF_ROW_WARPS + i];
		}
		__syncthreads(); // every thread has read the slots before they are reused
	}
}

// sf_row_start returns the element of input v where row r starts.
SF_FN long long sf_row_start(const sf_rows_params &p, int v, long long r) {
	long long e = p.in_off[v], rest = r;
	for (int k = (int)p.rank - 1; k >= 0; k--) {
		e += rest % p.shape[k] * p.stride[v][k];
		rest /= p.shape[k];
	}
	return e;
}

// sf_row_load reads the elements lane, lane+W, ... of the row of input v
// starting at element start into x (SF_ROW_PER of them), pad where the row
// has none or the thread has no row (live false).
SF_FN void sf_row_load(const sf_rows_params &p, int v, bool live, long long start, int lane, int W, float pad, float *x) {
	const long long cs = p.col_stride[v];
#pragma unroll
	for (int k = 0; k < SF_ROW_PER; k++) {
		const long long j = lane + (long long)k * W;
		x[k] = (live && j < p.cols) ? sf_ld_f32(p.in[v], start + j * cs) : pad;
	}
}
