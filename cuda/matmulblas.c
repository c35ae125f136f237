//go:build cgo && linux

// cuBLAS for the CUDA backend's matrix products (see matmulblas.h).

#include "matmulblas.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

sf_blas_api *sf_blas_load(const char *path, char *err, int errlen) {
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *m = dlerror();
		snprintf(err, errlen, "%s", m ? m : "dlopen failed");
		return NULL;
	}
	sf_blas_api *b = calloc(1, sizeof *b);
	if (!b) {
		snprintf(err, errlen, "out of host memory");
		return NULL; // the library stays loaded, as the driver does
	}
	b->lib = lib;
	static const struct {
		const char *name;
		size_t offset;
	} entries[] = {
		{"cublasCreate_v2", offsetof(sf_blas_api, cublasCreate)},
		{"cublasDestroy_v2", offsetof(sf_blas_api, cublasDestroy)},
		{"cublasSetStream_v2", offsetof(sf_blas_api, cublasSetStream)},
		{"cublasSetMathMode", offsetof(sf_blas_api, cublasSetMathMode)},
		{"cublasSgemmStridedBatched", offsetof(sf_blas_api, cublasSgemmStridedBatched)},
	};
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
		void *fn = dlsym(lib, entries[i].name);
		if (!fn) {
			snprintf(err, errlen, "%s has no %s", path, entries[i].name);
			free(b);
			return NULL;
		}
		*(void **)((char *)b + entries[i].offset) = fn;
	}
	return b;
}

int sf_blas_same_driver(sf_cu_api *a) {
	void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	int same = h != NULL && h == a->lib;
	if (h) {
		dlclose(h);
	}
	return same;
}

#define SF_BLAS_TRY(call, expr)                                                                                        \
	do {                                                                                                           \
		int r_ = (expr);                                                                                       \
		if (r_ != 0) {                                                                                         \
			return (sf_status){r_, call};                                                                  \
		}                                                                                                      \
	} while (0)

sf_status sf_blas_create(sf_cu_api *a, sf_ctx *c, sf_blas_api *b, sf_cublas_handle *h) {
	SF_BLAS_TRY("cuCtxSetCurrent", a->cuCtxSetCurrent(c->ctx));
	SF_BLAS_TRY("cublasCreate_v2", b->cublasCreate(h));
	int r = b->cublasSetStream(*h, c->stream);
	if (r == 0) {
		r = b->cublasSetMathMode(*h, SF_CUBLAS_PEDANTIC_MATH);
	}
	if (r != 0) {
		b->cublasDestroy(*h);
		*h = NULL;
		return (sf_status){r, "cublasSetStream_v2/cublasSetMathMode"};
	}
	return (sf_status){0, NULL};
}

sf_status sf_blas_math(sf_blas_api *b, sf_cublas_handle h, int tf32) {
	SF_BLAS_TRY("cublasSetMathMode", b->cublasSetMathMode(h, tf32 ? SF_CUBLAS_TF32_TENSOR_OP_MATH : SF_CUBLAS_PEDANTIC_MATH));
	return (sf_status){0, NULL};
}

sf_status sf_blas_destroy(sf_cu_api *a, sf_ctx *c, sf_blas_api *b, sf_cublas_handle h) {
	SF_BLAS_TRY("cuCtxSetCurrent", a->cuCtxSetCurrent(c->ctx));
	SF_BLAS_TRY("cublasDestroy_v2", b->cublasDestroy(h));
	return (sf_status){0, NULL};
}

// sf_blas_fn_mark's address stands for cuBLAS's SGEMM among the kernels
// the timer reports (its "function").
static char sf_blas_fn_mark;

CUfunction sf_blas_timing_fn(void) { return (CUfunction)(void *)&sf_blas_fn_mark; }

sf_status sf_blas_sgemm(sf_cu_api *a, sf_ctx *c, sf_blas_api *b, sf_cublas_handle h, const sf_blas_gemm *g,
			CUdeviceptr A, CUdeviceptr B, CUdeviceptr C) {
	const float one = 1, zero = 0;
	SF_BLAS_TRY("cuCtxSetCurrent", a->cuCtxSetCurrent(c->ctx));
	sf_status fl = sf_graph_flush(a, c); // cuBLAS runs outside the graphs, after what is queued
	if (fl.code != 0) {
		return fl;
	}
	sf_timing_begin(a, c);
	int r = b->cublasSgemmStridedBatched(h, (int)g->transa, (int)g->transb, (int)g->m, (int)g->n, (int)g->k, &one,
						 (const float *)(uintptr_t)A, (int)g->lda, g->stride_a,
						 (const float *)(uintptr_t)B, (int)g->ldb, g->stride_b, &zero,
						 (float *)(uintptr_t)C, (int)g->ldc, g->stride_c, (int)g->batch);
	sf_timing_end(a, c, sf_blas_timing_fn(), r);
	SF_BLAS_TRY("cublasSgemmStridedBatched", r);
	return (sf_status){0, NULL};
}
