// The C side of the CUDA backend: a table of driver and NVRTC entry points
// resolved at run time, and one wrapper per operation that makes the
// device's primary context current and then calls the driver, so each Go
// operation is a single cgo call whatever OS thread it runs on.
#ifndef SF_CUDA_NATIVE_H
#define SF_CUDA_NATIVE_H

#include "cudecl.h"

// sf_status is a wrapper's result: the CUDA (or NVRTC) result code and the
// name of the entry point that returned it (NULL on success).
typedef struct {
	int code;
	const char *call;
} sf_status;

// sf_cu_api holds the driver's entry points.
typedef struct {
	void *lib;
	int via_proc_address; // resolved through cuGetProcAddress, not dlsym
	sf_pfn_cuInit cuInit;
	sf_pfn_cuDriverGetVersion cuDriverGetVersion;
	sf_pfn_cuGetErrorName cuGetErrorName;
	sf_pfn_cuDeviceGetCount cuDeviceGetCount;
	sf_pfn_cuDeviceGet cuDeviceGet;
	sf_pfn_cuDeviceGetName cuDeviceGetName;
	sf_pfn_cuDeviceTotalMem cuDeviceTotalMem;
	sf_pfn_cuDeviceGetAttribute cuDeviceGetAttribute;
	sf_pfn_cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRetain;
	sf_pfn_cuDevicePrimaryCtxRelease cuDevicePrimaryCtxRelease;
	sf_pfn_cuCtxSetCurrent cuCtxSetCurrent;
	sf_pfn_cuStreamCreate cuStreamCreate;
	sf_pfn_cuStreamDestroy cuStreamDestroy;
	sf_pfn_cuStreamSynchronize cuStreamSynchronize;
	sf_pfn_cuMemAlloc cuMemAlloc;
	sf_pfn_cuMemFree cuMemFree;
	sf_pfn_cuMemAllocAsync cuMemAllocAsync; // optional (CUDA 11.2)
	sf_pfn_cuMemFreeAsync cuMemFreeAsync;   // optional (CUDA 11.2)
	sf_pfn_cuDeviceGetDefaultMemPool cuDeviceGetDefaultMemPool; // optional (CUDA 11.2)
	sf_pfn_cuMemPoolSetAttribute cuMemPoolSetAttribute;         // optional (CUDA 11.2)
	sf_pfn_cuMemPoolTrimTo cuMemPoolTrimTo;                     // optional (CUDA 11.2)
	sf_pfn_cuMemHostAlloc cuMemHostAlloc;
	sf_pfn_cuMemFreeHost cuMemFreeHost;
	sf_pfn_cuMemcpyHtoDAsync cuMemcpyHtoDAsync;
	sf_pfn_cuMemcpyDtoHAsync cuMemcpyDtoHAsync;
	sf_pfn_cuModuleLoadData cuModuleLoadData;
	sf_pfn_cuModuleUnload cuModuleUnload;
	sf_pfn_cuModuleGetFunction cuModuleGetFunction;
	sf_pfn_cuLaunchKernel cuLaunchKernel;
	sf_pfn_cuEventCreate cuEventCreate; // optional, with the four below (NULL unless all exist)
	sf_pfn_cuEventRecord cuEventRecord;
	sf_pfn_cuEventQuery cuEventQuery;
	sf_pfn_cuEventElapsedTime cuEventElapsedTime;
	sf_pfn_cuEventDestroy cuEventDestroy;
	sf_pfn_cuEventSynchronize cuEventSynchronize; // optional: without it (or the events) staging has one buffer
	sf_pfn_cuGraphCreate cuGraphCreate; // optional, with the six below (NULL unless all exist)
	sf_pfn_cuGraphAddKernelNode cuGraphAddKernelNode;
	sf_pfn_cuGraphInstantiateWithFlags cuGraphInstantiateWithFlags;
	sf_pfn_cuGraphLaunch cuGraphLaunch;
	sf_pfn_cuGraphExecKernelNodeSetParams cuGraphExecKernelNodeSetParams;
	sf_pfn_cuGraphExecDestroy cuGraphExecDestroy;
	sf_pfn_cuGraphDestroy cuGraphDestroy;
} sf_cu_api;

// sf_nvrtc_api holds NVRTC's entry points.
typedef struct {
	void *lib;
	sf_pfn_nvrtcGetErrorString nvrtcGetErrorString;
	sf_pfn_nvrtcVersion nvrtcVersion;
	sf_pfn_nvrtcCreateProgram nvrtcCreateProgram;
	sf_pfn_nvrtcDestroyProgram nvrtcDestroyProgram;
	sf_pfn_nvrtcCompileProgram nvrtcCompileProgram;
	sf_pfn_nvrtcGetSize nvrtcGetProgramLogSize;
	sf_pfn_nvrtcGetBytes nvrtcGetProgramLog;
	sf_pfn_nvrtcGetSize nvrtcGetPTXSize;
	sf_pfn_nvrtcGetBytes nvrtcGetPTX;
	sf_pfn_nvrtcGetSize nvrtcGetCUBINSize; // optional (CUDA 11.1)
	sf_pfn_nvrtcGetBytes nvrtcGetCUBIN;    // optional (CUDA 11.1)
} sf_nvrtc_api;

// sf_device_info is what Info reports about one device.
typedef struct {
	char name[256];
	size_t total_mem;
	int attr_max_threads, grid_x, grid_y, grid_z, shared_mem, warp, sms, integrated, cc_major, cc_minor, pools;
} sf_device_info;

// sf_timer is a device's kernel timing state (timing.c).
typedef struct sf_timer sf_timer;

// sf_graphs is a device's queue of deferred launches and its graphs
// (graph.c).
typedef struct sf_graphs sf_graphs;

// sf_ctx is one opened device: its primary context, its stream and the
// pinned staging buffer that host transfers go through (two halves used
// in turn, so that one half's copy runs while the host fills or drains the
// other); and the kernel
// calls counted for the profiler: every Go operation starts a new epoch
// (Device.usable), and a launch in an epoch with no launch yet starts a
// new call.
typedef struct {
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	void *staging;
	size_t staging_bytes;
	int async_alloc;
	CUmemoryPool pool; // the device's default memory pool, which async allocations use; NULL when unknown
	unsigned long long epoch, launch_epoch, calls;
	sf_timer *timer; // NULL until profiling is first turned on
	sf_graphs *graphs; // NULL until graphs are first turned on
	CUfunction failed_fn; // the deferred launch that failed at the last flush, for the error's text
	// The staging buffer's halves (one whole buffer without events): the
	// event recorded after the last copy through each, and whether that
	// copy may still be running.
	CUevent staged[2];
	int staged_busy[2];
} sf_ctx;

// SF_COPY_MAX_RANK is the rank the copy kernel's parameters hold.
#define SF_COPY_MAX_RANK 8

// sf_copy_params mirrors the parameter struct of kernels/copy.cu; every
// field is 64 bits wide so both compilers lay it out alike.
typedef struct {
	long long n, rank, elem, dst_off, src_off;
	long long shape[SF_COPY_MAX_RANK];
	long long dst_stride[SF_COPY_MAX_RANK];
	long long src_stride[SF_COPY_MAX_RANK];
} sf_copy_params;

sf_cu_api *sf_cu_load(const char *path, char *err, int errlen);
const char *sf_cu_error_name(sf_cu_api *a, int code);
sf_status sf_cu_init(sf_cu_api *a, int *version, int *count);
sf_status sf_cu_device_info(sf_cu_api *a, int ordinal, sf_device_info *out);
sf_status sf_cu_open(sf_cu_api *a, int ordinal, size_t staging_bytes, sf_ctx *c);
sf_status sf_cu_close(sf_cu_api *a, sf_ctx *c);
sf_status sf_cu_alloc(sf_cu_api *a, sf_ctx *c, size_t bytes, CUdeviceptr *out);
sf_status sf_cu_free(sf_cu_api *a, sf_ctx *c, CUdeviceptr p);
sf_status sf_cu_write(sf_cu_api *a, sf_ctx *c, CUdeviceptr dst, const void *src, size_t n);
sf_status sf_cu_read(sf_cu_api *a, sf_ctx *c, void *dst, CUdeviceptr src, size_t n);
sf_status sf_cu_sync(sf_cu_api *a, sf_ctx *c);
sf_status sf_cu_module_load(sf_cu_api *a, sf_ctx *c, const void *image, const char *fn, CUmodule *mod, CUfunction *f);
sf_status sf_cu_module_unload(sf_cu_api *a, sf_ctx *c, CUmodule mod);
sf_status sf_cu_launch_copy(sf_cu_api *a, sf_ctx *c, CUfunction f, unsigned grid, unsigned block, CUdeviceptr dst,
			    CUdeviceptr src, const sf_copy_params *p);
// sf_cu_launch launches a kernel whose one parameter is a struct, copied
// from params (a generated kernel's parameter words) at launch.
sf_status sf_cu_launch(sf_cu_api *a, sf_ctx *c, CUfunction f, unsigned grid, unsigned block, const void *params,
		       size_t bytes);

// CUDA graphs (graph.c). While graphs are on and profiling is off, the
// launch wrappers queue their launches (sf_graph_enqueue) and stream-ordered
// frees wait behind them (sf_graph_defer_free); every other wrapper that
// touches the stream first flushes the queue (sf_graph_flush): as a replay
// of an instantiated graph when the same sequence of launches ran before,
// else as plain launches.
typedef struct {
	unsigned long long segments, eager, built, replays, node_updates, failures;
	int broken; // the result that turned graphs off (0: working)
	const char *broken_call;
} sf_graph_stats;
sf_status sf_graph_set(sf_cu_api *a, sf_ctx *c, int on);
int sf_graph_active(sf_cu_api *a, sf_ctx *c);
sf_status sf_graph_enqueue(sf_cu_api *a, sf_ctx *c, CUfunction f, unsigned grid, unsigned block, int nargs,
			   void *const *args, const size_t *sizes);
int sf_graph_defer_free(sf_ctx *c, CUdeviceptr p);
sf_status sf_graph_flush(sf_cu_api *a, sf_ctx *c);
sf_status sf_cu_flush(sf_cu_api *a, sf_ctx *c);
void sf_graph_stats_get(sf_ctx *c, sf_graph_stats *out);
void sf_graph_free(sf_cu_api *a, sf_ctx *c);
// sf_timing_on reports whether profiling is on.
int sf_timing_on(sf_ctx *c);
// sf_timing_count counts a launch as part of the current kernel call.
void sf_timing_count(sf_ctx *c);

// Kernel timing (timing.c). Every launch wrapper calls sf_timing_begin
// just before cuLaunchKernel and sf_timing_end with its result just after:
// they count the call and, while profiling, record events around the launch.
void sf_timing_begin(sf_cu_api *a, sf_ctx *c);
void sf_timing_end(sf_cu_api *a, sf_ctx *c, CUfunction f, CUresult launched);
// sf_timing_set turns timing of later launches on or off.
sf_status sf_timing_set(sf_cu_api *a, sf_ctx *c, int on);
// sf_kernel_time is one timed launch that completed: its call, its kernel,
// its start on the host's clock (nanoseconds since the Unix epoch, an
// estimate) and its duration on the device.
typedef struct {
	unsigned long long call;
	CUfunction fn;
	long long start_ns, duration_ns;
} sf_kernel_time;
// sf_timing_collect stores up to max completed launches, oldest first, in
// out, forgets them, and returns how many it stored.
int sf_timing_collect(sf_cu_api *a, sf_ctx *c, sf_kernel_time *out, int max);
// sf_timing_free destroys the timer's events (sf_cu_close calls it).
void sf_timing_free(sf_cu_api *a, sf_ctx *c);

sf_nvrtc_api *sf_nvrtc_load(const char *path, const char *builtins, char *err, int errlen);
const char *sf_nvrtc_error_string(sf_nvrtc_api *a, int code);
sf_status sf_nvrtc_version(sf_nvrtc_api *a, int *major, int *minor);
sf_status sf_nvrtc_compile(sf_nvrtc_api *a, const char *src, const char *name, const char *const *opts, int nopts,
			   int cubin, char **out, size_t *outlen, char **log);

#endif
