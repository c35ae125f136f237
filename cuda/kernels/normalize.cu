// normalize.cu: device.NormalizeKernel (sf_normalize), (x-mean)*rstd of
// every row along the last dimension with rstd = 1/sqrt(var+eps) and var
// the biased variance; and device.NormalizeBackwardKernel
// (sf_normalize_backward), rstd*(g-mean(g)-xh*mean(g*xh)) with xh the
// normalized row of X, recomputed. The backend prepends ops.cuh, the
// __shared__ macro, sf_shfl_xor and rows.cuh (the row layout, parameters
// and reductions), so the file needs no CUDA header.
//
// Each row is shifted by its first element x0 and halved, y = x/2 - x0/2
// (exact, and finite for finite x, so large means lose nothing), then
// scaled by the power of two s that brings max|y| to [1, 2): z = y*s. The
// mean of z is summed, the variance is the mean of squared deviations
// d = z - mean(z) (a second pass over the row, held in registers for rows
// of at most W*SF_ROW_PER elements), never E[z^2]-E[z]^2. With c = 2/s,
// x - mean = d*c and var = var(z)*c^2, so the row's factor c*rstd is
// computed in double (var(z)*c^2 + eps overflows no float). A row holding
// NaN or +-Inf has a NaN or infinite max|y| and gives NaN everywhere; a
// constant row has d = 0 and gives 0 (NaN when eps is 0, as 0*Inf). Sums
// are float32. Longer rows are read again for each pass: max, sum,
// squares, (backward: the gradient's sums,) write.

// sf_nm_slots_n is the shared floats a kernel's reductions use.
#define SF_NM_SLOTS (2 * SF_ROW_WARPS)

// sf_nm_stats holds a row's statistics: the shift x0, the scale s, the
// mean of z, the factor f = c*rstd (x-mean = d*c, so (x-mean)*rstd =
// d*f), rstd, and whether the row gives NaN.
typedef struct {
	float x0, s, mz, f, rstd;
	bool bad;
} sf_nm_stats;

// sf_nm_y returns y = x/2 - x0/2.
SF_FN float sf_nm_y(float x, float x0) { return 0.5f * x - 0.5f * x0; }

// sf_nm_scale returns the power of two s that brings a = max|y| to [1, 4)
// (1 for a row of zeros); a is finite.
SF_FN float sf_nm_scale(float a) {
	if (a == 0.0f) {
		return 1.0f;
	}
	const int e = (int)((sf_f32_bits(a) >> 23) & 0xffu), E = 254 - e;
	return sf_bits_f32((unsigned)(E < 1 ? 1 : E) << 23);
}

// sf_nm_finish completes st from the row's max|y| (a), the sum of its
// squared deviations q and the row length: rstd and the factor in double.
SF_FN void sf_nm_finish(const sf_rows_params &p, sf_nm_stats &st, float q) {
	const double c = 2.0 / (double)st.s, n = (double)p.cols;
	const double rstd = 1.0 / SF_MATH(sqrt)((double)q / n * c * c + p.eps);
	st.rstd = (float)rstd;
	st.f = (float)(c * rstd);
}

// sf_nm_out returns the normalized element of deviation d.
SF_FN float sf_nm_out(const sf_nm_stats &st, float d) { return st.bad ? sf_nan() : d * st.f; }

// sf_nm_cached computes the statistics of a row held in registers (x, the
// thread's SF_ROW_PER elements; in[k] whether element k is the row's) and
// leaves each element's deviation d in x. Every thread of the block calls
// it.
SF_FN void sf_nm_cached(const sf_rows_params &p, int lane, int W, float *x, sf_nm_stats &st, float *slots) {
	float a = 0.0f;
#pragma unroll
	for (int k = 0; k < SF_ROW_PER; k++) {
		const bool in = lane + (long long)k * W < p.cols;
		x[k] = in ? sf_nm_y(x[k], st.x0) : 0.0f;
		a = op_max(a, op_abs(x[k]));
	}
	a = sf_row_all(a, W, true, slots);
	st.bad = !(a < sf_inf());
	st.s = st.bad ? 1.0f : sf_nm_scale(a);
	float sum = 0.0f;
#pragma unroll
	for (int k = 0; k < SF_ROW_PER; k++) {
		x[k] *= st.s;
		sum += x[k];
	}
	st.mz = sf_row_sum(sum, W, slots) / (float)p.cols;
	float q = 0.0f;
#pragma unroll
	for (int k = 0; k < SF_ROW_PER; k++) {
		const bool in = lane + (long long)k * W < p.cols;
		x[k] = in ? x[k] - st.mz : 0.0f;
		q += x[k] * x[k];
	}
	sf_nm_finish(p, st, sf_row_sum(q, W, slots));
}

// sf_nm_long computes the statistics of a row of input 0 starting at
// element x0e that is read from global memory once a pass. Every thread of
// the block calls it.
SF_FN void sf_nm_long(const sf_rows_params &p, bool live, long long x0e, int lane, int W, sf_nm_stats &st, float *slots) {
	const long long cs = p.col_stride[0];
	float a = 0.0f;
	for (long long j = lane; live && j < p.cols; j += W) {
		a = op_max(a, op_abs(sf_nm_y(sf_ld_f32(p.in[0], x0e + j * cs), st.x0)));
	}
	a = sf_row_all(a, W, true, slots);
	st.bad = !(a < sf_inf());
	st.s = st.bad ? 1.0f : sf_nm_scale(a);
	float sum = 0.0f;
	for (long long j = lane; live && j < p.cols; j += W) {
		sum += sf_nm_y(sf_ld_f32(p.in[0], x0e + j * cs), st.x0) * st.s;
	}
	st.mz = sf_row_sum(sum, W, slots) / (float)p.cols;
	float q = 0.0f;
	for (long long j = lane; live && j < p.cols; j += W) {
		const float d = sf_nm_y(sf_ld_f32(p.in[0], x0e + j * cs), st.x0) * st.s - st.mz;
		q += d * d;
	}
	sf_nm_finish(p, st, sf_row_sum(q, W, slots));
}

// sf_nm_d returns the deviation d of element x of a row read again.
SF_FN float sf_nm_d(const sf_nm_stats &st, float x) { return sf_nm_y(x, st.x0) * st.s - st.mz; }

SF_KERNEL void sf_normalize(const sf_rows_params p) {
	__shared__ float sf_nm_slots[SF_NM_SLOTS];
	const int W = (int)p.wpr, lane = (int)threadIdx.x % W, R = (int)blockDim.x / W;
	const long long groups = (p.rows + R - 1) / R, cs = p.col_stride[0];
	const bool cached = p.cols <= (long long)W * SF_ROW_PER;
	for (long long b = blockIdx.x; b < groups; b += gridDim.x) {
		const long long r = b * R + (long long)threadIdx.x / W;
		const bool live = r < p.rows;
		const long long in0 = live ? sf_row_start(p, 0, r) : 0, out0 = p.out_off + r * p.cols;
		sf_nm_stats st;
		st.x0 = live ? sf_ld_f32(p.in[0], in0) : 0.0f;
		if (cached) {
			float x[SF_ROW_PER];
			sf_row_load(p, 0, live, in0, lane, W, 0.0f, x);
			sf_nm_cached(p, lane, W, x, st, sf_nm_slots);
#pragma unroll
			for (int k = 0; k < SF_ROW_PER; k++) {
				const long long j = lane + (long long)k * W;
				if (live && j < p.cols) {
					sf_st_f32(p.out, out0 + j, sf_nm_out(st, x[k]));
				}
			}
			continue;
		}
		sf_nm_long(p, live, in0, lane, W, st, sf_nm_slots);
		for (long long j = lane; live && j < p.cols; j += W) {
			sf_st_f32(p.out, out0 + j, sf_nm_out(st, sf_nm_d(st, sf_ld_f32(p.in[0], in0 + j * cs))));
		}
	}
}

// sf_nm_grad returns the gradient of one element from its normalized value
// xh, its gradient g and the row's means of g (mg) and of g*xh (mgx).
SF_FN float sf_nm_grad(const sf_nm_stats &st, float xh, float g, float mg, float mgx) {
	return st.bad ? sf_nan() : st.rstd * (g - mg - xh * mgx);
}

SF_KERNEL void sf_normalize_backward(const sf_rows_params p) {
	__shared__ float sf_nm_slots[SF_NM_SLOTS];
	const int W = (int)p.wpr, lane = (int)threadIdx.x % W, R = (int)blockDim.x / W;
	const long long groups = (p.rows + R - 1) / R, xs = p.col_stride[0], gs = p.col_stride[1];
	const bool cached = p.cols <= (long long)W * SF_ROW_PER;
	const float n = (float)p.cols;
	for (long long b = blockIdx.x; b < groups; b += gridDim.x) {
		const long long r = b * R + (long long)threadIdx.x / W;
		const bool live = r < p.rows;
		const long long x0e = live ? sf_row_start(p, 0, r) : 0, g0 = live ? sf_row_start(p, 1, r) : 0;
		const long long out0 = p.out_off + r * p.cols;
		sf_nm_stats st;
		st.x0 = live ? sf_ld_f32(p.in[0], x0e) : 0.0f;
		float sg = 0.0f, sgx = 0.0f;
		if (cached) {
			float x[SF_ROW_PER], g[SF_ROW_PER];
			sf_row_load(p, 0, live, x0e, lane, W, 0.0f, x);
			sf_row_load(p, 1, live, g0, lane, W, 0.0f, g);
			sf_nm_cached(p, lane, W, x, st, sf_nm_slots);
#pragma unroll
			for (int k = 0; k < SF_ROW_PER; k++) {
				x[k] = sf_nm_out(st, x[k]); // xh; 0 where the row has no element
				sg += g[k];
				sgx += g[k] * x[k];
			}
			sf_row_sum2(sg, sgx, W, sf_nm_slots);
#pragma unroll
			for (int k = 0; k < SF_ROW_PER; k++) {
				const long long j = lane + (long long)k * W;
				if (live && j < p.cols) {
					sf_st_f32(p.out, out0 + j, sf_nm_grad(st, x[k], g[k], sg / n, sgx / n));
				}
			}
			continue;
		}
		sf_nm_long(p, live, x0e, lane, W, st, sf_nm_slots);
		for (long long j = lane; live && j < p.cols; j += W) {
			const float g = sf_ld_f32(p.in[1], g0 + j * gs);
			sg += g;
			sgx += g * sf_nm_out(st, sf_nm_d(st, sf_ld_f32(p.in[0], x0e + j * xs)));
		}
		sf_row_sum2(sg, sgx, W, sf_nm_slots);
		for (long long j = lane; live && j < p.cols; j += W) {
			const float xh = sf_nm_out(st, sf_nm_d(st, sf_ld_f32(p.in[0], x0e + j * xs)));
			sf_st_f32(p.out, out0 + j, sf_nm_grad(st, xh, sf_ld_f32(p.in[1], g0 + j * gs), sg / n, sgx / n));
		}
	}
}
