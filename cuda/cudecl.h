// Hand-written declarations of the few CUDA driver and NVRTC types, constants
// and function-pointer types the backend uses (no CUDA header is needed to
// build). Values follow the documented driver API; CUDA 12.0 is the ABI the
// entry points are resolved at.
#ifndef SF_CUDECL_H
#define SF_CUDECL_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUmemPoolHandle_st *CUmemoryPool;

// sf_kernel_node_params is CUDA_KERNEL_NODE_PARAMS_v2 (CUDA 12.0): the
// last two fields, left NULL, select the function by func and the current
// context; a driver taking the first version reads only the fields before
// them.
typedef struct {
	CUfunction func;
	unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
	void **params;
	void **extra;
	void *kern;
	CUcontext ctx;
} sf_kernel_node_params;

enum {
	SF_CUDA_SUCCESS = 0,
	SF_CUDA_ERROR_INVALID_VALUE = 1,
	SF_CUDA_ERROR_OUT_OF_MEMORY = 2,
	SF_CUDA_ERROR_NOT_INITIALIZED = 3,
	SF_CUDA_ERROR_NO_DEVICE = 100,
	SF_CUDA_ERROR_NOT_FOUND = 500,
	SF_CUDA_ERROR_NOT_READY = 600,
	SF_CUDA_ERROR_NOT_SUPPORTED = 801,
};

// cuGetProcAddress is asked for entry points as of this CUDA version.
#define SF_CUDA_API_VERSION 12000

enum {
	SF_CU_ATTR_MAX_THREADS_PER_BLOCK = 1,
	SF_CU_ATTR_MAX_GRID_DIM_X = 5,
	SF_CU_ATTR_MAX_GRID_DIM_Y = 6,
	SF_CU_ATTR_MAX_GRID_DIM_Z = 7,
	SF_CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
	SF_CU_ATTR_WARP_SIZE = 10,
	SF_CU_ATTR_MULTIPROCESSOR_COUNT = 16,
	SF_CU_ATTR_INTEGRATED = 18,
	SF_CU_ATTR_CC_MAJOR = 75,
	SF_CU_ATTR_CC_MINOR = 76,
	SF_CU_ATTR_MEMORY_POOLS_SUPPORTED = 115,
};

#define SF_CU_STREAM_NON_BLOCKING 1u
#define SF_CU_MEMHOSTALLOC_PORTABLE 1u
#define SF_CU_EVENT_DISABLE_TIMING 2u
// CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: the bytes a pool keeps across synchronizations.
#define SF_CU_MEMPOOL_ATTR_RELEASE_THRESHOLD 4

typedef CUresult (*sf_pfn_cuGetProcAddress)(const char *, void **, int, uint64_t);
typedef CUresult (*sf_pfn_cuGetProcAddress_v2)(const char *, void **, int, uint64_t, int *);
typedef CUresult (*sf_pfn_cuInit)(unsigned);
typedef CUresult (*sf_pfn_cuDriverGetVersion)(int *);
typedef CUresult (*sf_pfn_cuGetErrorName)(CUresult, const char **);
typedef CUresult (*sf_pfn_cuDeviceGetCount)(int *);
typedef CUresult (*sf_pfn_cuDeviceGet)(CUdevice *, int);
typedef CUresult (*sf_pfn_cuDeviceGetName)(char *, int, CUdevice);
typedef CUresult (*sf_pfn_cuDeviceTotalMem)(size_t *, CUdevice);
typedef CUresult (*sf_pfn_cuDeviceGetAttribute)(int *, int, CUdevice);
typedef CUresult (*sf_pfn_cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
typedef CUresult (*sf_pfn_cuDevicePrimaryCtxRelease)(CUdevice);
typedef CUresult (*sf_pfn_cuCtxSetCurrent)(CUcontext);
typedef CUresult (*sf_pfn_cuStreamCreate)(CUstream *, unsigned);
typedef CUresult (*sf_pfn_cuStreamDestroy)(CUstream);
typedef CUresult (*sf_pfn_cuStreamSynchronize)(CUstream);
typedef CUresult (*sf_pfn_cuMemAlloc)(CUdeviceptr *, size_t);
typedef CUresult (*sf_pfn_cuMemFree)(CUdeviceptr);
typedef CUresult (*sf_pfn_cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream);
typedef CUresult (*sf_pfn_cuMemFreeAsync)(CUdeviceptr, CUstream);
typedef CUresult (*sf_pfn_cuDeviceGetDefaultMemPool)(CUmemoryPool *, CUdevice);
typedef CUresult (*sf_pfn_cuMemPoolSetAttribute)(CUmemoryPool, int, void *);
typedef CUresult (*sf_pfn_cuMemPoolTrimTo)(CUmemoryPool, size_t);
typedef CUresult (*sf_pfn_cuMemHostAlloc)(void **, size_t, unsigned);
typedef CUresult (*sf_pfn_cuMemFreeHost)(void *);
typedef CUresult (*sf_pfn_cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
typedef CUresult (*sf_pfn_cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
typedef CUresult (*sf_pfn_cuModuleLoadData)(CUmodule *, const void *);
typedef CUresult (*sf_pfn_cuModuleUnload)(CUmodule);
typedef CUresult (*sf_pfn_cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
typedef CUresult (*sf_pfn_cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
					   unsigned, CUstream, void **, void **);
typedef CUresult (*sf_pfn_cuEventCreate)(CUevent *, unsigned);
typedef CUresult (*sf_pfn_cuEventRecord)(CUevent, CUstream);
typedef CUresult (*sf_pfn_cuEventQuery)(CUevent);
typedef CUresult (*sf_pfn_cuEventElapsedTime)(float *, CUevent, CUevent);
typedef CUresult (*sf_pfn_cuEventDestroy)(CUevent);
typedef CUresult (*sf_pfn_cuEventSynchronize)(CUevent);
typedef CUresult (*sf_pfn_cuGraphCreate)(CUgraph *, unsigned);
typedef CUresult (*sf_pfn_cuGraphAddKernelNode)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
						const sf_kernel_node_params *);
typedef CUresult (*sf_pfn_cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
typedef CUresult (*sf_pfn_cuGraphLaunch)(CUgraphExec, CUstream);
typedef CUresult (*sf_pfn_cuGraphExecKernelNodeSetParams)(CUgraphExec, CUgraphNode, const sf_kernel_node_params *);
typedef CUresult (*sf_pfn_cuGraphExecDestroy)(CUgraphExec);
typedef CUresult (*sf_pfn_cuGraphDestroy)(CUgraph);

// NVRTC.
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

enum {
	SF_NVRTC_SUCCESS = 0,
	SF_NVRTC_ERROR_INVALID_OPTION = 5,
	SF_NVRTC_ERROR_COMPILATION = 6,
};

typedef const char *(*sf_pfn_nvrtcGetErrorString)(nvrtcResult);
typedef nvrtcResult (*sf_pfn_nvrtcVersion)(int *, int *);
typedef nvrtcResult (*sf_pfn_nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
						 const char *const *);
typedef nvrtcResult (*sf_pfn_nvrtcDestroyProgram)(nvrtcProgram *);
typedef nvrtcResult (*sf_pfn_nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
typedef nvrtcResult (*sf_pfn_nvrtcGetSize)(nvrtcProgram, size_t *);
typedef nvrtcResult (*sf_pfn_nvrtcGetBytes)(nvrtcProgram, char *);

#endif
