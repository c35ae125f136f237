// The cuBLAS side of the CUDA backend's matrix products: cuBLAS is opened
// with dlopen like the driver, through these hand-written declarations of
// the few entry points used (no cuBLAS header is needed to build), and
// each wrapper makes the device's context current before calling it.
#ifndef SF_MATMULBLAS_H
#define SF_MATMULBLAS_H

#include "native.h"

typedef int sf_cublas_status; // cublasStatus_t; 0 is CUBLAS_STATUS_SUCCESS
typedef void *sf_cublas_handle;

// cuBLAS's enumerations, as cublas_api.h numbers them.
#define SF_CUBLAS_OP_N 0
#define SF_CUBLAS_OP_T 1
#define SF_CUBLAS_PEDANTIC_MATH 2
#define SF_CUBLAS_TF32_TENSOR_OP_MATH 3

typedef sf_cublas_status (*sf_pfn_cublasCreate)(sf_cublas_handle *);
typedef sf_cublas_status (*sf_pfn_cublasDestroy)(sf_cublas_handle);
typedef sf_cublas_status (*sf_pfn_cublasSetStream)(sf_cublas_handle, CUstream);
typedef sf_cublas_status (*sf_pfn_cublasSetMathMode)(sf_cublas_handle, int);
typedef sf_cublas_status (*sf_pfn_cublasSgemmStridedBatched)(sf_cublas_handle, int transa, int transb, int m, int n,
							      int k, const float *alpha, const float *a, int lda,
							      long long stride_a, const float *b, int ldb,
							      long long stride_b, const float *beta, float *c, int ldc,
							      long long stride_c, int batch);

// sf_blas_api holds cuBLAS's entry points.
typedef struct {
	void *lib;
	sf_pfn_cublasCreate cublasCreate;
	sf_pfn_cublasDestroy cublasDestroy;
	sf_pfn_cublasSetStream cublasSetStream;
	sf_pfn_cublasSetMathMode cublasSetMathMode;
	sf_pfn_cublasSgemmStridedBatched cublasSgemmStridedBatched;
} sf_blas_api;

// sf_blas_gemm is one cublasSgemmStridedBatched call's sizes and strides
// (every field 64 bits wide, as Go fills it).
typedef struct {
	long long transa, transb, m, n, k, lda, ldb, ldc, batch;
	long long stride_a, stride_b, stride_c;
} sf_blas_gemm;

sf_blas_api *sf_blas_load(const char *path, char *err, int errlen);
// sf_blas_same_driver reports whether the driver a was loaded from is the
// libcuda.so.1 that cuBLAS (through the CUDA runtime) uses: not so for a
// driver named by path that is not the system's, such as the test double.
int sf_blas_same_driver(sf_cu_api *a);
// sf_blas_create makes a handle on the device's context and stream, with
// pedantic math (float32 products stay float32: no TF32 tensor cores).
sf_status sf_blas_create(sf_cu_api *a, sf_ctx *c, sf_blas_api *b, sf_cublas_handle *h);
sf_status sf_blas_destroy(sf_cu_api *a, sf_ctx *c, sf_blas_api *b, sf_cublas_handle h);
// sf_blas_math sets the handle's math mode: TF32 tensor cores (tf32 != 0)
// or pedantic float32.
sf_status sf_blas_math(sf_blas_api *b, sf_cublas_handle h, int tf32);
// sf_blas_timing_fn stands for cuBLAS's SGEMM among the launches the
// kernel timer reports: sf_blas_sgemm counts and times its call as one
// kernel, events bracketing every kernel cuBLAS launches for it.
CUfunction sf_blas_timing_fn(void);
// sf_blas_sgemm computes C = op(A)·op(B) for every batch (alpha 1, beta 0),
// after the launches queued for a graph.
sf_status sf_blas_sgemm(sf_cu_api *a, sf_ctx *c, sf_blas_api *b, sf_cublas_handle h, const sf_blas_gemm *g,
			CUdeviceptr A, CUdeviceptr B, CUdeviceptr C);

#endif
