// softmax.cu: device.SoftmaxKernel (sf_softmax), the softmax exp(x-m)/s or
// log-softmax (x-m)-log(s) of every row along the last dimension, with m
// the row's maximum and s the sum of exp(x-m); and
// device.SoftmaxBackwardKernel (sf_softmax_backward), the gradient
// y*(g-sum(g*y)), or g-exp(y)*sum(g) for a log-softmax, of every row of the
// output y and its gradient g (sums in float32). The backend prepends ops.cuh (op_max,
// op_exp, op_log, loads and stores), the __shared__ macro and sf_shfl_xor
// (cuda/softmax.go), so the file needs no CUDA header.
//
// A row is served by W threads, W a power of two (p.wpr): for rows of at
// most 32*SF_SM_PER elements W is at most 32 (a warp or part of one, so a
// block of blockDim.x threads serves blockDim.x/W rows and consecutive
// lanes read consecutive elements), and for longer rows W is the whole
// block (256, 512 or 1024 threads, the host's choice). Thread `lane` of a
// row takes elements lane, lane+W, lane+2W, ... Rows of at most
// W*SF_SM_PER elements are read from global memory once, into registers:
// the row maximum and then the sum are combined across the W threads by
// xor shuffles (each thread ends with the same value) and, where W spans
// several warps, one shared-memory slot a warp. Longer rows are read
// twice: once for each thread's running maximum and sum (the sum rescaled
// when the maximum grows) or its part of the backward sum, once to write.
// Out is written once.
//
// As in PyTorch, a row whose maximum is NaN or +Inf (it holds one) or -Inf
// (all its elements are -Inf) gives NaN everywhere; a -Inf element of any
// other row gives 0 (softmax) or -Inf (log-softmax).
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

#define SF_SM_MAX_RANK 8

// SF_SM_PER is the elements a thread keeps in registers a view; SF_SM_WARPS
// the most warps a block may have (its shared slots).
#define SF_SM_PER 16
#define SF_SM_WARPS 32

// sf_softmax_params mirrors planSoftmax's words (cuda/softmaxplan.go): the
// launch's rows, the rank of the row dimensions, the row length, log (0 or
// 1), W, then the inputs' addresses (In, or Y and G), Out's, the inputs'
// offsets and strides along the row, the offset of the launch's first row
// in Out, and the row dimensions' shape and each input's strides
// (outermost first).
typedef struct {
	long long rows, rank, cols, log, wpr;
	unsigned long long in[2], out;
	long long in_off[2], col_stride[2], out_off;
	long long shape[SF_SM_MAX_RANK];
	long long stride[2][SF_SM_MAX_RANK];
} sf_softmax_params;

// sf_sm_combine folds partial maxima (is_max) or sums.
SF_FN float sf_sm_combine(float a, float b, bool is_max) { return is_max ? op_max(a, b) : a + b; }

// sf_sm_all combines v over the W threads of each row and returns the
// result to all of them: a butterfly of xor shuffles inside the warp (each
// step pairs the same two values on both sides, so every thread computes
// the same result), then, where a row spans the block's warps, each warp's
// result through shared memory, folded in warp order. Every thread of the
// block must call it.
SF_FN float sf_sm_all(float v, int W, bool is_max, float *slots) {
	for (int d = (W < 32 ? W : 32) / 2; d > 0; d >>= 1) {
		v = sf_sm_combine(v, sf_shfl_xor(v, d), is_max);
	}
	if (W > 32) {
		const int warp = threadIdx.x / 32, warps = W / 32;
		if (threadIdx.x % 32 == 0) {
			slots[warp] = v;
		}
		__syncthreads();
		v = slots[0];
		for (int i = 1; i < warps; i++) {
			v = sf_sm_combine(v, slots[i], is_max);
		}
		__syncthreads(); // every thread has read the slots before they are reused
	}
	return v;
}

// sf_sm_row_start returns the element of input v where row r starts.
SF_FN long long sf_sm_row_start(const sf_softmax_params &p, int v, long long r) {
	long long e = p.in_off[v], rest = r;
	for (int k = (int)p.rank - 1; k >= 0; k--) {
		e += rest % p.shape[k] * p.stride[v][k];
		rest /= p.shape[k];
	}
	return e;
}

// sf_sm_bad reports whether a row whose maximum is m gives NaN: m is NaN
// or infinite.
SF_FN bool sf_sm_bad(float m) { return !(m > -sf_inf() && m < sf_inf()); }

// sf_sm_result returns the result for element x of a row with maximum m,
// sum s and log(s) ls: NaN for a bad row, (x-m)-ls for a log-softmax, and
// e/s for a softmax, e being exp(x-m) (which only a softmax computes).
SF_FN float sf_sm_result(const sf_softmax_params &p, bool bad, float x, float e, float m, float s, float ls) {
	if (bad) {
		return sf_nan();
	}
	return p.log ? (x - m) - ls : e / s;
}

SF_KERNEL void sf_softmax(const sf_softmax_params p) {
	__shared__ float sf_sm_slots[2][SF_SM_WARPS];
	const int W = (int)p.wpr, lane = (int)threadIdx.x % W, R = (int)blockDim.x / W;
	const long long groups = (p.rows + R - 1) / R, cs = p.col_stride[0];
	const bool cached = p.cols <= (long long)W * SF_SM_PER;
	for (long long g = blockIdx.x; g < groups; g += gridDim.x) {
		const long long r = g * R + (long long)threadIdx.x / W;
		const bool live = r < p.rows;
		const long long in0 = live ? sf_sm_row_start(p, 0, r) : 0, out0 = p.out_off + r * p.cols;
		if (cached) {
			float v[SF_SM_PER];
			float m = -sf_inf();
#pragma unroll
			for (int k = 0; k < SF_SM_PER; k++) {
				const long long j = lane + (long long)k * W;
				v[k] = (live && j < p.cols) ? sf_ld_f32(p.in[0], in0 + j * cs) : -sf_inf();
				m = op_max(m, v[k]);
			}
			m = sf_sm_all(m, W, true, sf_sm_slots[0]);
			const bool bad = sf_sm_bad(m);
			float s = 0.0f;
#pragma unroll
			for (int k = 0; k < SF_SM_PER; k++) {
				// exp(-Inf - m) is 0 for the padding and -Inf elements.
				const float e = bad ? 0.0f : op_exp(v[k] - m);
				s += e;
				if (!p.log) {
					v[k] = e;
				}
			}
			s = sf_sm_all(s, W, false, sf_sm_slots[1]);
			const float ls = op_log(s);
#pragma unroll
			for (int k = 0; k < SF_SM_PER; k++) {
				const long long j = lane + (long long)k * W;
				if (live && j < p.cols) {
					sf_st_f32(p.out, out0 + j, sf_sm_result(p, bad, v[k], v[k], m, s, ls));
				}
			}
			continue;
		}
		// A long row: each thread's running maximum mt and sum st of
		// exp(x-mt) over its elements (a NaN makes mt NaN; -Inf adds
		// nothing), then the row's maximum and the sums rescaled to it.
		float mt = -sf_inf(), st = 0.0f;
		for (long long j = lane; live && j < p.cols; j += W) {
			const float x = sf_ld_f32(p.in[0], in0 + j * cs);
			if (sf_is_nan(x)) {
				mt = x;
			} else if (x > mt) {
				st = st * op_exp(mt - x) + 1.0f;
				mt = x;
			} else if (x > -sf_inf()) {
				st += op_exp(x - mt);
			}
		}
		const float m = sf_sm_all(mt, W, true, sf_sm_slots[0]);
		const bool bad = sf_sm_bad(m);
		const float s = sf_sm_all((bad || !(mt > -sf_inf())) ? 0.0f : st * op_exp(mt - m), W, false, sf_sm_slots[1]);
		const float ls = op_log(s);
		for (long long j = lane; live && j < p.cols; j += W) {
			const float x = sf_ld_f32(p.in[0], in0 + j * cs);
			const float e = (bad || p.log) ? 0.0f : op_exp(x - m);
			sf_st_f32(p.out, out0 + j, sf_sm_result(p, bad, x, e, m, s, ls));
		}
	}
}

// sf_sm_grad returns the gradient of one element from its output y, its
// gradient g and the row's sum s (of g*y, or of g for a log-softmax).
SF_FN float sf_sm_grad(const sf_softmax_params &p, float y, float g, float s) {
	return p.log ? g - op_exp(y) * s : y * (g - s);
}

SF_KERNEL void sf_softmax_backward(const sf_softmax_params p) {
	__shared__ float sf_sm_slots[SF_SM_WARPS];
	const int W = (int)p.wpr, lane = (int)threadIdx.x % W, R = (int)blockDim.x / W;
	const long long groups = (p.rows + R - 1) / R, ys = p.col_stride[0], gs = p.col_stride[1];
	const bool cached = p.cols <= (long long)W * SF_SM_PER;
	for (long long b = blockIdx.x; b < groups; b += gridDim.x) {
		const long long r = b * R + (long long)threadIdx.x / W;
		const bool live = r < p.rows;
		const long long y0 = live ? sf_sm_row_start(p, 0, r) : 0, g0 = live ? sf_sm_row_start(p, 1, r) : 0;
		const long long out0 = p.out_off + r * p.cols;
		float s = 0.0f;
		if (cached) {
			float y[SF_SM_PER], g[SF_SM_PER];
#pragma unroll
			for (int k = 0; k < SF_SM_PER; k++) {
				const long long j = lane + (long long)k * W;
				const bool in = live && j < p.cols;
				y[k] = in ? sf_ld_f32(p.in[0], y0 + j * ys) : 0.0f;
				g[k] = in ? sf_ld_f32(p.in[1], g0 + j * gs) : 0.0f;
				s += p.log ? g[k] : g[k] * y[k];
			}
			s = sf_sm_all(s, W, false, sf_sm_slots);
#pragma unroll
			for (int k = 0; k < SF_SM_PER; k++) {
				const long long j = lane + (long long)k * W;
				if (live && j < p.cols) {
					sf_st_f32(p.out, out0 + j, sf_sm_grad(p, y[k], g[k], s));
				}
			}
			continue;
		}
		for (long long j = lane; live && j < p.cols; j += W) {
			const float g = sf_ld_f32(p.in[1], g0 + j * gs);
			s += p.log ? g : g * sf_ld_f32(p.in[0], y0 + j * ys);
		}
		s = sf_sm_all(s, W, false, sf_sm_slots);
		for (long long j = lane; live && j < p.cols; j += W) {
			const float y = sf_ld_f32(p.in[0], y0 + j * ys), g = sf_ld_f32(p.in[1], g0 + j * gs);
			sf_st_f32(p.out, out0 + j, sf_sm_grad(p, y, g, s));
		}
	}
}
