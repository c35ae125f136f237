//go:build cgo && linux

// Resolving the driver's entry points: through cuGetProcAddress at CUDA
// 12.0's ABI when the driver has it, else through dlsym of the versioned
// symbol names that ABI uses.

#include "native.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

// sf_cu_entry names one entry point, its versioned symbol and its slot.
typedef struct {
	const char *name;    // the name cuGetProcAddress is asked for
	const char *symbol;  // the versioned symbol dlsym is asked for
	size_t offset;       // the slot in sf_cu_api
	int optional;
} sf_cu_entry;

#define SF_ENTRY(n, sym, opt) {#n, sym, offsetof(sf_cu_api, n), opt}

static const sf_cu_entry entries[] = {
	SF_ENTRY(cuInit, "cuInit", 0),
	SF_ENTRY(cuDriverGetVersion, "cuDriverGetVersion", 0),
	SF_ENTRY(cuGetErrorName, "cuGetErrorName", 1),
	SF_ENTRY(cuDeviceGetCount, "cuDeviceGetCount", 0),
	SF_ENTRY(cuDeviceGet, "cuDeviceGet", 0),
	SF_ENTRY(cuDeviceGetName, "cuDeviceGetName", 0),
	SF_ENTRY(cuDeviceTotalMem, "cuDeviceTotalMem_v2", 0),
	SF_ENTRY(cuDeviceGetAttribute, "cuDeviceGetAttribute", 0),
	SF_ENTRY(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 0),
	SF_ENTRY(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", 0),
	SF_ENTRY(cuCtxSetCurrent, "cuCtxSetCurrent", 0),
	SF_ENTRY(cuStreamCreate, "cuStreamCreate", 0),
	SF_ENTRY(cuStreamDestroy, "cuStreamDestroy_v2", 0),
	SF_ENTRY(cuStreamSynchronize, "cuStreamSynchronize", 0),
	SF_ENTRY(cuMemAlloc, "cuMemAlloc_v2", 0),
	SF_ENTRY(cuMemFree, "cuMemFree_v2", 0),
	SF_ENTRY(cuMemAllocAsync, "cuMemAllocAsync", 1),
	SF_ENTRY(cuMemFreeAsync, "cuMemFreeAsync", 1),
	SF_ENTRY(cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", 1),
	SF_ENTRY(cuMemPoolSetAttribute, "cuMemPoolSetAttribute", 1),
	SF_ENTRY(cuMemPoolTrimTo, "cuMemPoolTrimTo", 1),
	SF_ENTRY(cuMemHostAlloc, "cuMemHostAlloc", 0),
	SF_ENTRY(cuMemFreeHost, "cuMemFreeHost", 0),
	SF_ENTRY(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", 0),
	SF_ENTRY(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", 0),
	SF_ENTRY(cuModuleLoadData, "cuModuleLoadData", 0),
	SF_ENTRY(cuModuleUnload, "cuModuleUnload", 0),
	SF_ENTRY(cuModuleGetFunction, "cuModuleGetFunction", 0),
	SF_ENTRY(cuLaunchKernel, "cuLaunchKernel", 0),
	SF_ENTRY(cuEventCreate, "cuEventCreate", 1),
	SF_ENTRY(cuEventRecord, "cuEventRecord", 1),
	SF_ENTRY(cuEventQuery, "cuEventQuery", 1),
	SF_ENTRY(cuEventElapsedTime, "cuEventElapsedTime", 1),
	SF_ENTRY(cuEventDestroy, "cuEventDestroy_v2", 1),
	SF_ENTRY(cuEventSynchronize, "cuEventSynchronize", 1),
	SF_ENTRY(cuGraphCreate, "cuGraphCreate", 1),
	SF_ENTRY(cuGraphAddKernelNode, "cuGraphAddKernelNode_v2", 1),
	SF_ENTRY(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", 1),
	SF_ENTRY(cuGraphLaunch, "cuGraphLaunch", 1),
	SF_ENTRY(cuGraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams_v2", 1),
	SF_ENTRY(cuGraphExecDestroy, "cuGraphExecDestroy", 1),
	SF_ENTRY(cuGraphDestroy, "cuGraphDestroy", 1),
};

// lookup resolves one entry point, preferring cuGetProcAddress.
static void *lookup(void *lib, sf_pfn_cuGetProcAddress_v2 gpa2, sf_pfn_cuGetProcAddress gpa, const sf_cu_entry *e,
		    int *via) {
	void *fn = NULL;
	if (gpa2) {
		int found = 0;
		if (gpa2(e->name, &fn, SF_CUDA_API_VERSION, 0, &found) == SF_CUDA_SUCCESS && fn) {
			*via = 1;
			return fn;
		}
	} else if (gpa) {
		if (gpa(e->name, &fn, SF_CUDA_API_VERSION, 0) == SF_CUDA_SUCCESS && fn) {
			*via = 1;
			return fn;
		}
	}
	return dlsym(lib, e->symbol);
}

sf_cu_api *sf_cu_load(const char *path, char *err, int errlen) {
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *m = dlerror();
		snprintf(err, errlen, "%s", m ? m : "dlopen failed");
		return NULL;
	}
	sf_cu_api *a = calloc(1, sizeof *a);
	if (!a) {
		snprintf(err, errlen, "out of host memory");
		return NULL; // the library stays loaded: the driver is never unloaded
	}
	a->lib = lib;
	sf_pfn_cuGetProcAddress_v2 gpa2 = (sf_pfn_cuGetProcAddress_v2)dlsym(lib, "cuGetProcAddress_v2");
	sf_pfn_cuGetProcAddress gpa = (sf_pfn_cuGetProcAddress)dlsym(lib, "cuGetProcAddress");
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
		const sf_cu_entry *e = &entries[i];
		void *fn = lookup(lib, gpa2, gpa, e, &a->via_proc_address);
		if (!fn && !e->optional) {
			snprintf(err, errlen, "%s has no %s (driver too old?)", path, e->symbol);
			free(a);
			return NULL;
		}
		*(void **)((char *)a + e->offset) = fn;
	}
	if (!a->cuMemAllocAsync || !a->cuMemFreeAsync) {
		a->cuMemAllocAsync = NULL;
		a->cuMemFreeAsync = NULL;
	}
	if (!a->cuEventCreate || !a->cuEventRecord || !a->cuEventQuery || !a->cuEventElapsedTime ||
	    !a->cuEventDestroy) {
		a->cuEventCreate = NULL; // kernel timing needs them all (see timing.c)
	}
	if (!a->cuGraphCreate || !a->cuGraphAddKernelNode || !a->cuGraphInstantiateWithFlags || !a->cuGraphLaunch ||
	    !a->cuGraphExecKernelNodeSetParams || !a->cuGraphExecDestroy || !a->cuGraphDestroy) {
		a->cuGraphCreate = NULL; // graphs need them all (see graph.c)
	}
	return a;
}

const char *sf_cu_error_name(sf_cu_api *a, int code) {
	const char *s = NULL;
	if (a && a->cuGetErrorName && a->cuGetErrorName(code, &s) == SF_CUDA_SUCCESS && s) {
		return s;
	}
	return NULL;
}
