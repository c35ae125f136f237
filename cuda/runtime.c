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
// SF_FLUSH runs the launches queued for a graph before what follows.
#define SF_FLUSH(a, c)                                                                                                 \
	do {                                                                                                           \
		sf_status f_ = sf_graph_flush((a), (c));                                                               \
		if (f_.code != 0) {                                                                                    \
			return f_;                                                                                     \
		}                                                                                                      \
	} while (0)

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

// keep_pool_memory makes the default memory pool keep freed memory across
// synchronizations: by default the driver returns it to the system at every
// synchronization, so that the next stream-ordered allocation (a kernel's
// scratch) maps fresh memory. Best effort: a driver without the calls, or
// one that refuses them, keeps its default.
static void keep_pool_memory(sf_cu_api *a, sf_ctx *c) {
	if (!c->async_alloc || !a->cuDeviceGetDefaultMemPool || !a->cuMemPoolSetAttribute ||
	    a->cuDeviceGetDefaultMemPool(&c->pool, c->dev) != SF_CUDA_SUCCESS) {
		c->pool = NULL;
		return;
	}
	unsigned long long keep = ~0ULL;
	if (a->cuMemPoolSetAttribute(c->pool, SF_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep) != SF_CUDA_SUCCESS) {
		c->pool = NULL;
	}
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
	keep_pool_memory(a, c);
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
	if (a->cuEventCreate && a->cuEventSynchronize && staging_bytes >= 2) {
		for (int h = 0; h < 2; h++) {
			if (a->cuEventCreate(&c->staged[h], SF_CU_EVENT_DISABLE_TIMING) != SF_CUDA_SUCCESS) {
				c->staged[h] = NULL;
			}
		}
		if (!c->staged[0] || !c->staged[1]) {
			for (int h = 0; h < 2; h++) {
				if (c->staged[h]) {
					a->cuEventDestroy(c->staged[h]);
					c->staged[h] = NULL;
				}
			}
		}
	}
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
	sf_status fl = sf_graph_flush(a, c);
	if (fl.code != 0) {
		st = fl;
	}
	SF_STEP("cuCtxSetCurrent", a->cuCtxSetCurrent(c->ctx));
	SF_STEP("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
	// The default pool keeps freed memory (keep_pool_memory); give it back
	// now that the stream has run the device's last frees, since the process
	// may go on without the device.
	if (c->pool && a->cuMemPoolTrimTo) {
		a->cuMemPoolTrimTo(c->pool, 0);
	}
	sf_timing_free(a, c);
	sf_graph_free(a, c);
	for (int h = 0; h < 2; h++) {
		if (c->staged[h]) {
			a->cuEventDestroy(c->staged[h]);
			c->staged[h] = NULL;
		}
	}
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
		// Frees still pending on the stream (or queued behind launches for
		// a graph) may return enough memory, and the memory the pool keeps
		// may serve another size once given back.
		SF_FLUSH(a, c);
		SF_TRY("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
		if (c->pool && a->cuMemPoolTrimTo) {
			a->cuMemPoolTrimTo(c->pool, 0);
		}
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
		if (sf_graph_defer_free(c, p)) {
			return SF_OK; // freed after the queued launches
		}
		SF_TRY("cuMemFreeAsync", a->cuMemFreeAsync(p, c->stream));
		return SF_OK;
	}
	// cuMemFree does not wait for this stream's work: wait first.
	SF_FLUSH(a, c);
	SF_TRY("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
	SF_TRY("cuMemFree", a->cuMemFree(p));
	return SF_OK;
}

// half returns the size of a staging half: half the buffer when there are
// events to track each half's copy, else the whole buffer (one "half").
static size_t half(const sf_ctx *c) { return c->staged[0] ? c->staging_bytes / 2 : c->staging_bytes; }

// staged returns staging half h.
static char *staged(const sf_ctx *c, int h) { return (char *)c->staging + (size_t)h * half(c); }

// wait_half waits until the last copy through half h has finished.
static sf_status wait_half(sf_cu_api *a, sf_ctx *c, int h) {
	if (c->staged_busy[h]) {
		SF_TRY("cuEventSynchronize", a->cuEventSynchronize(c->staged[h]));
		c->staged_busy[h] = 0;
	}
	return SF_OK;
}

// mark_half notes a copy just queued through half h: an event to wait for,
// or without events a wait for the stream now.
static sf_status mark_half(sf_cu_api *a, sf_ctx *c, int h) {
	if (!c->staged[0]) {
		SF_TRY("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
		return SF_OK;
	}
	SF_TRY("cuEventRecord", a->cuEventRecord(c->staged[h], c->stream));
	c->staged_busy[h] = 1;
	return SF_OK;
}

sf_status sf_cu_write(sf_cu_api *a, sf_ctx *c, CUdeviceptr dst, const void *src, size_t n) {
	SF_CURRENT(a, c);
	SF_FLUSH(a, c);
	const char *s = src;
	const size_t step = half(c);
	int h = 0;
	for (size_t done = 0; done < n; h = c->staged[0] ? 1 - h : 0) {
		size_t k = n - done < step ? n - done : step;
		// The host fills this half while the other half's copy runs; the
		// stream orders each copy after the kernels queued before it.
		sf_status st = wait_half(a, c, h);
		if (st.code) {
			return st;
		}
		memcpy(staged(c, h), s + done, k);
		SF_TRY("cuMemcpyHtoDAsync", a->cuMemcpyHtoDAsync(dst + done, staged(c, h), k, c->stream));
		if ((st = mark_half(a, c, h)).code) {
			return st;
		}
		done += k;
	}
	return SF_OK;
}

sf_status sf_cu_read(sf_cu_api *a, sf_ctx *c, void *dst, CUdeviceptr src, size_t n) {
	SF_CURRENT(a, c);
	SF_FLUSH(a, c);
	char *d = dst;
	if (n == 0) {
		SF_TRY("cuStreamSynchronize", a->cuStreamSynchronize(c->stream));
		return SF_OK;
	}
	const size_t step = half(c);
	const int halves = c->staged[0] ? 2 : 1;
	const size_t chunks = (n + step - 1) / step;
	// Chunk i goes through half i % halves; chunk i+1's copy is queued
	// before the host drains chunk i, so the two overlap.
	size_t queued = 0;
	for (size_t i = 0; i < chunks; i++) {
		for (; queued < chunks && queued < i + (size_t)halves; queued++) {
			int h = (int)(queued % (size_t)halves);
			size_t off = queued * step, k = n - off < step ? n - off : step;
			sf_status st = wait_half(a, c, h);
			if (st.code) {
				return st;
			}
			SF_TRY("cuMemcpyDtoHAsync", a->cuMemcpyDtoHAsync(staged(c, h), src + off, k, c->stream));
			if ((st = mark_half(a, c, h)).code) {
				return st;
			}
		}
		int h = (int)(i % (size_t)halves);
		sf_status st = wait_half(a, c, h);
		if (st.code) {
			return st;
		}
		size_t off = i * step, k = n - off < step ? n - off : step;
		memcpy(d + off, staged(c, h), k);
	}
	return SF_OK;
}

sf_status sf_cu_sync(sf_cu_api *a, sf_ctx *c) {
	SF_CURRENT(a, c);
	SF_FLUSH(a, c);
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
	sf_copy_params local = *p;
	void *args[] = {&dst, &src, &local};
	if (sf_graph_active(a, c)) {
		const size_t sizes[] = {sizeof dst, sizeof src, sizeof local};
		return sf_graph_enqueue(a, c, f, grid, block, 3, args, sizes);
	}
	SF_CURRENT(a, c);
	sf_timing_begin(a, c);
	CUresult r = a->cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, c->stream, args, NULL);
	sf_timing_end(a, c, f, r);
	SF_TRY("cuLaunchKernel", r);
	return SF_OK;
}

sf_status sf_cu_launch(sf_cu_api *a, sf_ctx *c, CUfunction f, unsigned grid, unsigned block, const void *params,
		       size_t bytes) {
	void *args[] = {(void *)params};
	if (sf_graph_active(a, c)) {
		return sf_graph_enqueue(a, c, f, grid, block, 1, args, &bytes);
	}
	SF_CURRENT(a, c);
	sf_timing_begin(a, c);
	CUresult r = a->cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, c->stream, args, NULL);
	sf_timing_end(a, c, f, r);
	SF_TRY("cuLaunchKernel", r);
	return SF_OK;
}
