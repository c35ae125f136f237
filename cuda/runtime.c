//go:build cgo && linux

// One wrapper per operation: each makes the device's primary context
// current and calls the driver, so a Go operation is one cgo call.

#include "native.h"

#include <string.h>

#define SF_OK ((sf_status){0, NULL})
#define SF_TRY(call, expr)                                                                                             \
	do {                                                                                                           \
		CUresult r_ = (expr);                                                                                  \
		if (r_ != SF_CUDA_SUCCESS) {                                                                           \
			return (sf_status){r_, call};                                                                  \
		}                                                                                                      \
	} while (0)
#define SF_CURRENT(a, c) SF_TRY("cuCtxSetCurrent", (a)->cuCtxSetCurrent((c)->ctx))

sf_status sf_cu_init(sf_cu_api *a, int *version, int *count) {
	SF_TRY("cuInit", a->cuInit(0));
	SF_TRY("cuDriverGetVersion", a->cuDriverGetVersion(version));
	SF_TRY("cuDeviceGetCount", a->cuDeviceGetCount(count));
	return SF_OK;
}

sf_status sf_cu_device_info(sf_cu_api *a, int ordinal, sf_device_info *out) {
	CUdevice d;
	SF_TRY("cuDeviceGet", a->cuDeviceGet(&d, ordinal));
	SF_TRY("cuDeviceGetName", a->cuDeviceGetName(out->name, (int)sizeof out->name - 1, d));
	out->name[sizeof out->name - 1] = 0;
	SF_TRY("cuDeviceTotalMem", a->cuDeviceTotalMem(&out->total_mem, d));
	struct {
		int attr;
		int *dst;
	} q[] = {
		{SF_CU_ATTR_MAX_THREADS_PER_BLOCK, &out->attr_max_threads},
		{SF_CU_ATTR_MAX_GRID_DIM_X, &out->grid_x},
		{SF_CU_ATTR_MAX_GRID_DIM_Y, &out->grid_y},
		{SF_CU_ATTR_MAX_GRID_DIM_Z, &out->grid_z},
		{SF_CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK, &out->shared_mem},
		{SF_CU_ATTR_WARP_SIZE, &out->warp},
		{SF_CU_ATTR_MULTIPROCESSOR_COUNT, &out->sms},
		{SF_CU_ATTR_INTEGRATED, &out->integrated},
		{SF_CU_ATTR_CC_MAJOR, &out->cc_major},
		{SF_CU_ATTR_CC_MINOR, &out->cc_minor},
		{SF_CU_ATTR_MEMORY_POOLS_SUPPORTED, &out->pools},
	};
	for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
		SF_TRY("cuDeviceGetAttribute", a->cuDeviceGetAttribute(q[i].dst, q[i].attr, d));
	}
	return SF_OK;
}

sf_status sf_cu_open(sf_cu_api *a, int ordinal, size_t staging_bytes, sf_ctx *c) {
	memset(c, 0, sizeof *c);
	SF_TRY("cuDeviceGet", a->cuDeviceGet(&c->dev, ordinal));
	int pools = 0;
	SF_TRY("cuDeviceGetAttribute", a->cuDeviceGetAttribute(&pools, SF_CU_ATTR_MEMORY_POOLS_SUPPORTED, c->dev));
	c->async_alloc = pools && a->cuMemAllocAsync;
	SF_TRY("cuDevicePrimaryCtxRetain", a->cuDevicePrimaryCtxRetain(&c->ctx, c->dev));
	sf_status st = SF_OK;
	CUresult r = a->cuCtxSetCurrent(c->ctx);
	if (r != SF_CUDA_SUCCESS) {
		st = (sf_status){r, "cuCtxSetCurrent"};
		goto release;
	}
	r = a->cuStreamCreate(&c->stream, SF_CU_STREAM_NON_BLOCKING);
	if (r != SF_CUDA_SUCCESS) {
		st = (sf_status){r, "cuStreamCreate"};
		goto release;
	}
	r = a->cuMemHostAlloc(&c->staging, staging_bytes, SF_CU_MEMHOSTALLOC_PORTABLE);
	if (r != SF_CUDA_SUCCESS) {
		st = (sf_status){r, "cuMemHostAlloc"};
		a->cuStreamDestroy(c->stream);
		goto release;
	}
	c->staging_bytes = staging_bytes;
	return SF_OK;
release:
	a->cuDevicePrimaryCtxRelease(c->dev);
	c->ctx = NULL;
	return st;
}

sf_status sf_cu_close(sf_cu_api *a, sf_ctx *c) {
	// Every step runs even after a failure, so a lost device still releases
	// what it can; the first failure is reported.
	sf_status st = SF_OK;
	CUresult r;
#define SF_STEP(call, expr)                                                                                            \
	r = (expr);                                                                                                    \
	if (r != SF_CUDA_SUCCESS && st.code == 0) {                                                                    \
		st = (sf_status){r, call};                                                                             \
	}
	SF_STEP("cuCtxSetCurrent", a->cuCtxSetCurrent(c->ctx));
	SF_STEP("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
	sf_timing_free(a, c);
	SF_STEP("cuStreamDestroy", a->cuStreamDestroy(c->stream));
	SF_STEP("cuMemFreeHost", a->cuMemFreeHost(c->staging));
	SF_STEP("cuDevicePrimaryCtxRelease", a->cuDevicePrimaryCtxRelease(c->dev));
#undef SF_STEP
	c->staging = NULL;
	c->ctx = NULL;
	return st;
}

sf_status sf_cu_alloc(sf_cu_api *a, sf_ctx *c, size_t bytes, CUdeviceptr *out) {
	SF_CURRENT(a, c);
	if (!c->async_alloc) {
		SF_TRY("cuMemAlloc", a->cuMemAlloc(out, bytes));
		return SF_OK;
	}
	CUresult r = a->cuMemAllocAsync(out, bytes, c->stream);
	if (r == SF_CUDA_ERROR_OUT_OF_MEMORY) {
		// Frees still pending on the stream may return enough memory.
		SF_TRY("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
		r = a->cuMemAllocAsync(out, bytes, c->stream);
	}
	if (r != SF_CUDA_SUCCESS) {
		return (sf_status){r, "cuMemAllocAsync"};
	}
	return SF_OK;
}

sf_status sf_cu_free(sf_cu_api *a, sf_ctx *c, CUdeviceptr p) {
	SF_CURRENT(a, c);
	if (c->async_alloc) {
		SF_TRY("cuMemFreeAsync", a->cuMemFreeAsync(p, c->stream));
		return SF_OK;
	}
	// cuMemFree does not wait for this stream's work: wait first.
	SF_TRY("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
	SF_TRY("cuMemFree", a->cuMemFree(p));
	return SF_OK;
}

sf_status sf_cu_write(sf_cu_api *a, sf_ctx *c, CUdeviceptr dst, const void *src, size_t n) {
	SF_CURRENT(a, c);
	const char *s = src;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < c->staging_bytes ? n - done : c->staging_bytes;
		// The staging buffer is reused, so the previous chunk's copy must
		// have finished; the stream also orders this after pending kernels.
		memcpy(c->staging, s + done, k);
		SF_TRY("cuMemcpyHtoDAsync", a->cuMemcpyHtoDAsync(dst + done, c->staging, k, c->stream));
		SF_TRY("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
		done += k;
	}
	return SF_OK;
}

sf_status sf_cu_read(sf_cu_api *a, sf_ctx *c, void *dst, CUdeviceptr src, size_t n) {
	SF_CURRENT(a, c);
	char *d = dst;
	if (n == 0) {
		SF_TRY("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
	}
	for (size_t done = 0; done < n;) {
		size_t k = n - done < c->staging_bytes ? n - done : c->staging_bytes;
		SF_TRY("cuMemcpyDtoHAsync", a->cuMemcpyDtoHAsync(c->staging, src + done, k, c->stream));
		SF_TRY("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
		memcpy(d + done, c->staging, k);
		done += k;
	}
	return SF_OK;
}

sf_status sf_cu_sync(sf_cu_api *a, sf_ctx *c) {
	SF_CURRENT(a, c);
	SF_TRY("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
	return SF_OK;
}

sf_status sf_cu_module_load(sf_cu_api *a, sf_ctx *c, const void *image, const char *fn, CUmodule *mod, CUfunction *f) {
	SF_CURRENT(a, c);
	SF_TRY("cuModuleLoadData", a->cuModuleLoadData(mod, image));
	CUresult r = a->cuModuleGetFunction(f, *mod, fn);
	if (r != SF_CUDA_SUCCESS) {
		a->cuModuleUnload(*mod);
		*mod = NULL;
		return (sf_status){r, "cuModuleGetFunction"};
	}
	return SF_OK;
}

sf_status sf_cu_module_unload(sf_cu_api *a, sf_ctx *c, CUmodule mod) {
	SF_CURRENT(a, c);
	SF_TRY("cuModuleUnload", a->cuModuleUnload(mod));
	return SF_OK;
}

sf_status sf_cu_launch_copy(sf_cu_api *a, sf_ctx *c, CUfunction f, unsigned grid, unsigned block, CUdeviceptr dst,
			    CUdeviceptr src, const sf_copy_params *p) {
	SF_CURRENT(a, c);
	sf_copy_params local = *p;
	void *args[] = {&dst, &src, &local};
	sf_timing_begin(a, c);
	CUresult r = a->cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, c->stream, args, NULL);
	sf_timing_end(a, c, f, r);
	SF_TRY("cuLaunchKernel", r);
	return SF_OK;
}

sf_status sf_cu_launch(sf_cu_api *a, sf_ctx *c, CUfunction f, unsigned grid, unsigned block, const void *params) {
	SF_CURRENT(a, c);
	void *args[] = {(void *)params};
	sf_timing_begin(a, c);
	CUresult r = a->cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, c->stream, args, NULL);
	sf_timing_end(a, c, f, r);
	SF_TRY("cuLaunchKernel", r);
	return SF_OK;
}
