// softmax.cu: device.SoftmaxKernel (sf_softmax), the softmax exp(x-m)/s or
// log-softmax (x-m)-log(s) of every row along the last dimension, with m
// the row's maximum and s the sum of exp(x-m); and
// device.SoftmaxBackwardKernel (sf_softmax_backward), the gradient
// y*(g-sum(g*y)), or g-exp(y)*sum(g) for a log-softmax, of every row of the
// output y and its gradient g (sums in float32). The backend prepends ops.cuh
// (op_max, op_exp, op_log, loads and stores), the __shared__ macro,
// sf_shfl_xor and rows.cuh (the row layout, parameters and reductions), so
// the file needs no CUDA header.
//
// Rows that fit in registers: the row maximum and then the sum are combined
// across the row's threads (sf_row_all). Longer rows are read twice: once
// for each thread's running maximum and sum (the sum rescaled when the
// maximum grows) or its part of the backward sum, once to write. Out is
// written once.
//
// As in PyTorch, a row whose maximum is NaN or +Inf (it holds one) or -Inf
// (all its elements are -Inf) gives NaN everywhere; a -Inf element of any
// other row gives 0 (softmax) or -Inf (log-softmax).

// sf_sm_bad reports whether a row whose maximum is m gives NaN: m is NaN
// or infinite.
SF_FN bool sf_sm_bad(float m) { return !(m > -sf_inf() && m < sf_inf()); }

// sf_sm_result returns the result for element x of a row with maximum m,
// sum s and log(s) ls: NaN for a bad row, (x-m)-ls for a log-softmax, and
// e/s for a softmax, e being exp(x-m) (which only a softmax computes).
SF_FN float sf_sm_result(const sf_rows_params &p, bool bad, float x, float e, float m, float s, float ls) {
	if (bad) {
		return sf_nan();
	}
	return p.log ? (x - m) - ls : e / s;
}

SF_KERNEL void sf_softmax(const sf_rows_params p) {
	__shared__ float sf_sm_slots[2][SF_ROW_WARPS];
	const int W = (int)p.wpr, lane = (int)threadIdx.x % W, R = (int)blockDim.x / W;
	const long long groups = (p.rows + R - 1) / R, cs = p.col_stride[0];
	const bool cached = p.cols <= (long long)W * SF_ROW_PER;
	for (long long g = blockIdx.x; g < groups; g += gridDim.x) {
		const long long r = g * R + (long long)threadIdx.x / W;
		const bool live = r < p.rows;
		const long long in0 = live ? sf_row_start(p, 0, r) : 0, out0 = p.out_off + r * p.cols;
		if (cached) {
			float v[SF_ROW_PER];
			sf_row_load(p, 0, live, in0, lane, W, -sf_inf(), v);
			float m = -sf_inf();
#pragma unroll
			for (int k = 0; k < SF_ROW_PER; k++) {
				m = op_max(m, v[k]);
			}
			m = sf_row_all(m, W, true, sf_sm_slots[0]);
			const bool bad = sf_sm_bad(m);
			float s = 0.0f;
#pragma unroll
			for (int k = 0; k < SF_ROW_PER; k++) {
				// exp(-Inf - m) is 0 for the padding and -Inf elements.
				const float e = bad ? 0.0f : op_exp(v[k] - m);
				s += e;
				if (!p.log) {
					v[k] = e;
				}
			}
			s = sf_row_all(s, W, false, sf_sm_slots[1]);
			const float ls = op_log(s);
#pragma unroll
			for (int k = 0; k < SF_ROW_PER; k++) {
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
		const float m = sf_row_all(mt, W, true, sf_sm_slots[0]);
		const bool bad = sf_sm_bad(m);
		const float s = sf_row_all((bad || !(mt > -sf_inf())) ? 0.0f : st * op_exp(mt - m), W, false, sf_sm_slots[1]);
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
SF_FN float sf_sm_grad(const sf_rows_params &p, float y, float g, float s) {
	return p.log ? g - op_exp(y) * s : y * (g - s);
}

SF_KERNEL void sf_softmax_backward(const sf_rows_params p) {
	__shared__ float sf_sm_slots[SF_ROW_WARPS];
	const int W = (int)p.wpr, lane = (int)threadIdx.x % W, R = (int)blockDim.x / W;
	const long long groups = (p.rows + R - 1) / R, ys = p.col_stride[0], gs = p.col_stride[1];
	const bool cached = p.cols <= (long long)W * SF_ROW_PER;
	for (long long b = blockIdx.x; b < groups; b += gridDim.x) {
		const long long r = b * R + (long long)threadIdx.x / W;
		const bool live = r < p.rows;
		const long long y0 = live ? sf_row_start(p, 0, r) : 0, g0 = live ? sf_row_start(p, 1, r) : 0;
		const long long out0 = p.out_off + r * p.cols;
		float s = 0.0f;
		if (cached) {
			float y[SF_ROW_PER], g[SF_ROW_PER];
			sf_row_load(p, 0, live, y0, lane, W, 0.0f, y);
			sf_row_load(p, 1, live, g0, lane, W, 0.0f, g);
#pragma unroll
			for (int k = 0; k < SF_ROW_PER; k++) {
				s += p.log ? g[k] : g[k] * y[k];
			}
			s = sf_row_all(s, W, false, sf_sm_slots);
#pragma unroll
			for (int k = 0; k < SF_ROW_PER; k++) {
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
		s = sf_row_all(s, W, false, sf_sm_slots);
		for (long long j = lane; live && j < p.cols; j += W) {
			const float y = sf_ld_f32(p.in[0], y0 + j * ys), g = sf_ld_f32(p.in[1], g0 + j * gs);
			sf_st_f32(p.out, out0 + j, sf_sm_grad(p, y, g, s));
		}
	}
}
