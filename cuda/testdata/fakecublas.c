// A fake cuBLAS for tests: the five entry points the backend uses, with
// cublasSgemmStridedBatched computed on the host (device memory is host
// memory under the fake driver). Calls are logged to SF_FAKE_CUDA_LOG.
// It is a test double: it checks the backend's calls and data flow, not
// cuBLAS's speed or accuracy.

#include <stdio.h>
#include <stdlib.h>

typedef struct {
	void *stream;
	int mode;
} handle_t;

static void logf_(const char *what, long long a, long long b, long long c, long long d) {
	const char *path = getenv("SF_FAKE_CUDA_LOG");
	FILE *f = path && *path ? fopen(path, "a") : NULL;
	if (f) {
		fprintf(f, "%s m=%lld n=%lld k=%lld batch=%lld\n", what, a, b, c, d);
		fclose(f);
	}
}

int cublasCreate_v2(handle_t **h) {
	*h = calloc(1, sizeof **h);
	return *h ? 0 : 3; // CUBLAS_STATUS_ALLOC_FAILED
}

int cublasDestroy_v2(handle_t *h) {
	free(h);
	return 0;
}

int cublasSetStream_v2(handle_t *h, void *s) {
	h->stream = s;
	return 0;
}

int cublasSetMathMode(handle_t *h, int mode) {
	h->mode = mode;
	logf_("cublasSetMathMode", mode, 0, 0, 0);
	return 0;
}

// tf32 rounds x to TF32's 10-bit mantissa (to nearest, ties away), as
// tensor cores read float32 operands under CUBLAS_TF32_TENSOR_OP_MATH (3).
static float tf32(float x) {
	union {
		float f;
		unsigned u;
	} v = {x};
	if ((v.u & 0x7f800000u) != 0x7f800000u) {
		v.u = (v.u + 0x1000u) & 0xffffe000u;
	}
	return v.f;
}

// Column-major C = alpha op(A) op(B) + beta C for each batch; op is the
// identity (0) or the transpose (1).
int cublasSgemmStridedBatched(handle_t *h, int ta, int tb, int m, int n, int k, const float *alpha, const float *A,
			      int lda, long long sa, const float *B, int ldb, long long sb, const float *beta, float *C,
			      int ldc, long long sc, int batch) {
	if (!h || m < 0 || n < 0 || k < 0 || batch < 0 || (ta != 0 && ta != 1) || (tb != 0 && tb != 1)) {
		return 7; // CUBLAS_STATUS_INVALID_VALUE
	}
	logf_("cublasSgemmStridedBatched", m, n, k, batch);
	for (int z = 0; z < batch; z++) {
		const float *a = A + z * sa, *b = B + z * sb;
		float *c = C + z * sc;
		for (int j = 0; j < n; j++) {
			for (int i = 0; i < m; i++) {
				float s = 0;
				for (int p = 0; p < k; p++) {
					float x = ta ? a[p + (long long)i * lda] : a[i + (long long)p * lda];
					float y = tb ? b[j + (long long)p * ldb] : b[p + (long long)j * ldb];
					if (h->mode == 3) {
						x = tf32(x);
						y = tf32(y);
					}
					s += x * y;
				}
				float *out = &c[i + (long long)j * ldc];
				*out = *alpha * s + (*beta != 0 ? *beta * *out : 0);
			}
		}
	}
	return 0;
}
