// A fake libcuda for tests: the driver entry points the backend calls,
// implemented with host memory (cuMemAlloc is malloc, copies are memcpy),
// a module loader that accepts the fake NVRTC's images (the kernels
// compiled for the host into a shared library, which it dlopens) and a
// launcher that runs a kernel over the grid one block at a time through
// the shim the fake NVRTC added (fakeprelude.h's sf_fake_block runs the
// block's threads). It checks what a driver would refuse (a context not
// current, a copy through unpinned host memory or outside an allocation, a
// kernel access outside every allocation, reported as
// CUDA_ERROR_ILLEGAL_ADDRESS) and injects faults named by
// SF_FAKE_CUDA_FAIL, a list of entry=code or entry=code*count (fail only
// the first count calls). Calls are logged, one a line, to the file
// SF_FAKE_CUDA_LOG names. Build with -DFAKE_NO_PROC_ADDRESS to leave out
// cuGetProcAddress. It also runs CUDA graphs (chains of kernel nodes, see
// below).

#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static void logf_(const char *fmt, ...) {
	const char *path = getenv("SF_FAKE_CUDA_LOG");
	if (!path || !*path) {
		return;
	}
	FILE *f = fopen(path, "a");
	if (!f) {
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

// fault returns the injected result for entry point name, or 0.
static CUresult fault(const char *name) {
	static struct {
		char name[64];
		int calls;
	} seen[64];
	const char *spec = getenv("SF_FAKE_CUDA_FAIL");
	if (!spec) {
		return 0;
	}
	size_t n = strlen(name);
	for (const char *p = spec; (p = strstr(p, name)) != NULL; p += n) {
		if ((p != spec && p[-1] != ',') || p[n] != '=') {
			continue;
		}
		char *end;
		int code = (int)strtol(p + n + 1, &end, 10);
		int limit = *end == '*' ? atoi(end + 1) : -1;
		int i = 0;
		while (i < 64 && seen[i].name[0] && strcmp(seen[i].name, name) != 0) {
			i++;
		}
		if (i == 64) {
			return code;
		}
		if (!seen[i].name[0]) {
			snprintf(seen[i].name, sizeof seen[i].name, "%s", name);
		}
		if (limit >= 0 && seen[i].calls >= limit) {
			return 0;
		}
		seen[i].calls++;
		logf_("fault %s %d", name, code);
		return code;
	}
	return 0;
}

#define FAULT(name)                                                                                                    \
	do {                                                                                                           \
		CUresult f_ = fault(name);                                                                             \
		if (f_) {                                                                                              \
			return f_;                                                                                     \
		}                                                                                                      \
	} while (0)

static long long envll(const char *name, long long def) {
	const char *v = getenv(name);
	return v && *v ? atoll(v) : def;
}

// Contexts: one per device, made current per thread.
static int ctx_storage[8];
static __thread void *current;
static int retained;

#define NEED_CTX()                                                                                                     \
	do {                                                                                                           \
		if (!current) {                                                                                        \
			logf_("no current context");                                                                  \
			return 201; /* CUDA_ERROR_INVALID_CONTEXT */                                                   \
		}                                                                                                      \
	} while (0)

// Allocations, device and pinned host.
typedef struct {
	char *p;
	size_t n;
	int pinned;
} alloc_t;
static alloc_t allocs[4096];
static int allocs_end; // every allocation is in allocs[0, allocs_end)
static size_t used;

static int add_alloc(void *p, size_t n, int pinned) {
	for (int i = 0; i < 4096; i++) {
		if (!allocs[i].p) {
			allocs[i] = (alloc_t){p, n, pinned};
			if (i >= allocs_end) {
				allocs_end = i + 1;
			}
			return 0;
		}
	}
	return -1;
}

static int holds(const alloc_t *a, const char *c, size_t n, int pinned) {
	return a->p && a->pinned == pinned && c >= a->p && c + n <= a->p + a->n;
}

// Kernels check every access (sf_fake_checker): the allocations this thread
// found last are tried first, then all of them.
static _Thread_local int recent[4], recent_next;

static alloc_t *find(const void *p, size_t n, int pinned) {
	const char *c = p;
	for (int r = 0; r < 4; r++) {
		if (holds(&allocs[recent[r]], c, n, pinned)) {
			return &allocs[recent[r]];
		}
	}
	for (int i = 0; i < allocs_end; i++) {
		if (holds(&allocs[i], c, n, pinned)) {
			recent[recent_next] = i;
			recent_next = (recent_next + 1) % 4;
			return &allocs[i];
		}
	}
	return NULL;
}

static const char *names[][2] = {
	{"0", "CUDA_SUCCESS"},
	{"1", "CUDA_ERROR_INVALID_VALUE"},
	{"2", "CUDA_ERROR_OUT_OF_MEMORY"},
	{"100", "CUDA_ERROR_NO_DEVICE"},
	{"201", "CUDA_ERROR_INVALID_CONTEXT"},
	{"209", "CUDA_ERROR_NO_BINARY_FOR_GPU"},
	{"500", "CUDA_ERROR_NOT_FOUND"},
	{"700", "CUDA_ERROR_ILLEGAL_ADDRESS"},
	{"719", "CUDA_ERROR_LAUNCH_FAILED"},
};

CUresult cuGetErrorName(CUresult r, const char **s) {
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (atoi(names[i][0]) == r) {
			*s = names[i][1];
			return 0;
		}
	}
	return 1;
}

CUresult cuInit(unsigned flags) {
	FAULT("cuInit");
	return flags ? 1 : 0;
}

CUresult cuDriverGetVersion(int *v) {
	*v = 13000;
	return 0;
}

CUresult cuDeviceGetCount(int *n) {
	FAULT("cuDeviceGetCount");
	*n = (int)envll("SF_FAKE_CUDA_DEVICES", 1);
	return 0;
}

CUresult cuDeviceGet(int *d, int ordinal) {
	if (ordinal < 0 || ordinal >= envll("SF_FAKE_CUDA_DEVICES", 1)) {
		return 101;
	}
	*d = ordinal;
	return 0;
}

CUresult cuDeviceGetName(char *name, int len, int d) {
	snprintf(name, len, "Fake CUDA GPU %d", d);
	return 0;
}

CUresult cuDeviceTotalMem_v2(size_t *n, int d) {
	*n = (size_t)envll("SF_FAKE_CUDA_MEM", 1 << 30);
	return 0;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
	long long cc = envll("SF_FAKE_CUDA_CC", 90);
	switch (attr) {
	case 1: *v = 1024; break;
	case 5: *v = 2147483647; break;
	case 6: case 7: *v = 65535; break;
	case 8: *v = 49152; break;
	case 10: *v = 32; break;
	case 16: *v = 4; break;
	case 18: *v = 0; break;
	case 75: *v = (int)(cc / 10); break;
	case 76: *v = (int)(cc % 10); break;
	case 115: *v = !getenv("SF_FAKE_CUDA_NO_POOLS"); break;
	default: return 1;
	}
	return 0;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) {
	FAULT("cuDevicePrimaryCtxRetain");
	*ctx = &ctx_storage[d & 7];
	retained++;
	logf_("retain %d", d);
	return 0;
}

CUresult cuDevicePrimaryCtxRelease_v2(int d) {
	retained--;
	logf_("release %d", d);
	return 0;
}

CUresult cuCtxSetCurrent(void *ctx) {
	current = ctx;
	return 0;
}

static int streams;

CUresult cuStreamCreate(void **s, unsigned flags) {
	NEED_CTX();
	*s = &streams;
	logf_("stream create flags=%u", flags);
	return 0;
}

CUresult cuStreamDestroy_v2(void *s) {
	logf_("stream destroy");
	return 0;
}

CUresult cuStreamSynchronize(void *s) {
	NEED_CTX();
	FAULT("cuStreamSynchronize");
	return 0;
}

static CUresult alloc(CUdeviceptr *p, size_t n, const char *how) {
	NEED_CTX();
	FAULT(how);
	if (used + n > (size_t)envll("SF_FAKE_CUDA_MEM", 1 << 30)) {
		return 2;
	}
	void *m = malloc(n);
	if (!m || add_alloc(m, n, 0)) {
		free(m);
		return 2;
	}
	used += n;
	*p = (CUdeviceptr)(uintptr_t)m;
	logf_("%s %zu", how, n);
	return 0;
}

static CUresult release(CUdeviceptr p, const char *how) {
	NEED_CTX();
	alloc_t *a = find((void *)(uintptr_t)p, 1, 0);
	if (!a || a->p != (char *)(uintptr_t)p) {
		logf_("%s of unknown pointer", how);
		return 1;
	}
	used -= a->n;
	free(a->p);
	a->p = NULL;
	logf_("%s", how);
	return 0;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { return alloc(p, n, "cuMemAlloc"); }
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, void *s) { return alloc(p, n, "cuMemAllocAsync"); }
CUresult cuMemFree_v2(CUdeviceptr p) { return release(p, "cuMemFree"); }
CUresult cuMemFreeAsync(CUdeviceptr p, void *s) { return release(p, "cuMemFreeAsync"); }

// The default memory pool: one per device, its attributes logged (the fake
// allocates and frees at once, so a threshold changes nothing else).
static char default_pool;

CUresult cuDeviceGetDefaultMemPool(void **pool, int dev) {
	FAULT("cuDeviceGetDefaultMemPool");
	*pool = &default_pool;
	logf_("cuDeviceGetDefaultMemPool %d", dev);
	return 0;
}

CUresult cuMemPoolSetAttribute(void *pool, int attr, void *value) {
	NEED_CTX();
	FAULT("cuMemPoolSetAttribute");
	if (pool != &default_pool) {
		return 1; // CUDA_ERROR_INVALID_VALUE
	}
	logf_("cuMemPoolSetAttribute attr=%d value=%llu", attr, *(unsigned long long *)value);
	return 0;
}

CUresult cuMemPoolTrimTo(void *pool, size_t keep) {
	logf_("cuMemPoolTrimTo %zu", keep);
	return pool == &default_pool ? 0 : 1;
}

CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) {
	NEED_CTX();
	FAULT("cuMemHostAlloc");
	*p = malloc(n);
	if (!*p || add_alloc(*p, n, 1)) {
		return 2;
	}
	logf_("cuMemHostAlloc %zu", n);
	return 0;
}

CUresult cuMemFreeHost(void *p) {
	alloc_t *a = find(p, 1, 1);
	if (!a) {
		return 1;
	}
	free(a->p);
	a->p = NULL;
	logf_("cuMemFreeHost");
	return 0;
}

static CUresult copy(void *dst, int dpinned, const void *src, int spinned, size_t n, const char *how) {
	NEED_CTX();
	FAULT(how);
	if (!find(dst, n, dpinned) || !find(src, n, spinned)) {
		logf_("%s outside an allocation or through unpinned memory", how);
		return 1;
	}
	memcpy(dst, src, n);
	logf_("%s %zu", how, n);
	return 0;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *st) {
	return copy((void *)(uintptr_t)d, 0, s, 1, n, "cuMemcpyHtoDAsync");
}

CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *st) {
	return copy(d, 1, (void *)(uintptr_t)s, 0, n, "cuMemcpyDtoHAsync");
}

// in_alloc is the kernels' access check: n bytes at p lie in a device
// allocation.
static int in_alloc(const void *p, size_t n) { return find(p, n, 0) != NULL; }

// Modules are the fake NVRTC's images: "SFFAKE <arch> ...\n<library>\n" and
// the source; loading one dlopens the library.
typedef struct {
	void *lib;
} module_t;

// A function is a kernel's host shim and its parameter count.
typedef struct {
	char name[256];
	int (*host)(void **args);
	int (*block)(int (*host)(void **), void **args, const unsigned *dims, unsigned bx, unsigned by, unsigned bz);
	int nargs;
	unsigned long long (*argsize)(int); // each parameter's size, for graph nodes
} function_t;

CUresult cuModuleLoadData(void **m, const void *image) {
	NEED_CTX();
	FAULT("cuModuleLoadData");
	const char *img = image;
	if (strncmp(img, "SFFAKE ", 7) != 0) {
		return 200; // CUDA_ERROR_INVALID_IMAGE
	}
	const char *path = strchr(img, '\n');
	if (!path) {
		return 200;
	}
	path++;
	char lib[4096];
	snprintf(lib, sizeof lib, "%.*s", (int)strcspn(path, "\n"), path);
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		logf_("dlopen %s: %s", lib, dlerror());
		return 200;
	}
	int (**checker)(const void *, size_t) = dlsym(h, "sf_fake_checker");
	if (checker) {
		*checker = in_alloc;
	}
	module_t *mod = malloc(sizeof *mod);
	mod->lib = h;
	*m = mod;
	logf_("cuModuleLoadData %.*s", (int)strcspn(img, "\n"), img);
	return 0;
}

CUresult cuModuleUnload(void *m) {
	module_t *mod = m;
	dlclose(mod->lib);
	free(mod);
	logf_("cuModuleUnload");
	return 0;
}

CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
	module_t *mod = m;
	char sym[300];
	snprintf(sym, sizeof sym, "%s__sf_host", name);
	void *host = dlsym(mod->lib, sym);
	snprintf(sym, sizeof sym, "%s__sf_nargs", name);
	const int *nargs = dlsym(mod->lib, sym);
	void *block = dlsym(mod->lib, "sf_fake_block");
	if (!host || !nargs || !block) {
		return 500;
	}
	function_t *fn = calloc(1, sizeof *fn); // leaked with the module, as tests load few
	snprintf(fn->name, sizeof fn->name, "%s", name);
	fn->host = (int (*)(void **))host;
	fn->block = (int (*)(int (*)(void **), void **, const unsigned *, unsigned, unsigned, unsigned))block;
	fn->nargs = *nargs;
	snprintf(sym, sizeof sym, "%s__sf_argsize", name);
	fn->argsize = (unsigned long long (*)(int))dlsym(mod->lib, sym);
	*f = fn;
	return 0;
}

// The launcher runs the grid one block at a time (blocks whose kernel calls
// __syncthreads as coroutines, see fakeprelude.h), with the limits of the
// attributes above: at most 1024 threads a block, 2^31-1 blocks along x and
// 65535 along y and z, 48 KiB of dynamic shared memory (which the fake
// kernels cannot use: their shared memory is static). It logs the first two
// 64-bit words of the last parameter, which the backend's kernels start
// with n and rank, after how (cuLaunchKernel, or graph for a graph's node).
static CUresult run_grid(function_t *fn, const unsigned dims[6], unsigned shared, void **params, const char *how) {
	unsigned gx = dims[0], gy = dims[1], gz = dims[2], bx = dims[3], by = dims[4], bz = dims[5];
	if (!fn || !params || fn->nargs < 1 || gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
	    gx > 2147483647u || gy > 65535 || gz > 65535 || bx > 1024 || by > 1024 || bz > 64 ||
	    (unsigned long long)bx * by * bz > 1024 || shared > 49152) {
		return 1;
	}
	const long long *w = params[fn->nargs - 1];
	if (gy == 1 && gz == 1 && by == 1 && bz == 1) {
		logf_("%s %s grid=%u block=%u n=%lld rank=%lld", how, fn->name, gx, bx, w[0], w[1]);
	} else {
		logf_("%s %s grid=%ux%ux%u block=%ux%ux%u n=%lld rank=%lld", how, fn->name, gx, gy, gz, bx, by, bz, w[0],
		      w[1]);
	}
	for (unsigned z = 0; z < gz; z++) {
		for (unsigned y = 0; y < gy; y++) {
			for (unsigned x = 0; x < gx; x++) {
				switch (fn->block(fn->host, params, dims, x, y, z)) {
				case 1:
					logf_("illegal address in %s", fn->name);
					return 700; // CUDA_ERROR_ILLEGAL_ADDRESS
				case 2:
					logf_("barrier not reached by every thread in %s", fn->name);
					return 719; // CUDA_ERROR_LAUNCH_FAILED
				}
			}
		}
	}
	return 0;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			unsigned shared, void *stream, void **params, void **extra) {
	NEED_CTX();
	FAULT("cuLaunchKernel");
	if (extra) {
		return 1;
	}
	const unsigned dims[6] = {gx, gy, gz, bx, by, bz};
	return run_grid(f, dims, shared, params, "cuLaunchKernel");
}

#ifndef FAKE_NO_GRAPHS
// Graphs: a graph is a list of kernel nodes, each holding a copy of its
// arguments (sized by the kernel's parameters, as a driver does); every
// node must depend on the node added before it (the backend's chains), so
// running the nodes in order is running the graph. Instantiating copies
// the nodes; launching runs them with run_grid, logged as "graph". Build
// with -DFAKE_NO_GRAPHS to leave the graph entry points out.
typedef struct {
	void *func;
	unsigned gx, gy, gz, bx, by, bz, shared;
	void **params, **extra;
	void *kern, *ctx;
} knode_params_t;

typedef struct knode {
	function_t *fn;
	unsigned dims[6], shared;
	void *args[16];
	char *store;
	int index;
} knode_t;

typedef struct {
	knode_t *nodes[1024];
	int n;
} graph_t;

typedef struct {
	knode_t *nodes;
	int n;
} exec_t;

static int graphs_live;

// knode_set copies p into k, arguments included.
static CUresult knode_set(knode_t *k, const knode_params_t *p) {
	function_t *fn = p->func;
	if (!fn || !fn->argsize || !p->params || p->extra || p->kern || fn->nargs > 16) {
		return 1;
	}
	size_t total = 0;
	for (int i = 0; i < fn->nargs; i++) {
		total += (fn->argsize(i) + 15) & ~15ULL;
	}
	char *store = malloc(total ? total : 1);
	size_t off = 0;
	for (int i = 0; i < fn->nargs; i++) {
		size_t n = fn->argsize(i);
		memcpy(store + off, p->params[i], n);
		k->args[i] = store + off;
		off += (n + 15) & ~15ULL;
	}
	free(k->store);
	k->store = store;
	k->fn = fn;
	const unsigned dims[6] = {p->gx, p->gy, p->gz, p->bx, p->by, p->bz};
	memcpy(k->dims, dims, sizeof dims);
	k->shared = p->shared;
	return 0;
}

CUresult cuGraphCreate(void **g, unsigned flags) {
	NEED_CTX();
	FAULT("cuGraphCreate");
	if (!g || flags) {
		return 1;
	}
	*g = calloc(1, sizeof(graph_t));
	graphs_live++;
	logf_("cuGraphCreate");
	return 0;
}

CUresult cuGraphAddKernelNode_v2(void **node, void *graph, void *const *deps, size_t ndeps, const knode_params_t *p) {
	NEED_CTX();
	FAULT("cuGraphAddKernelNode");
	graph_t *g = graph;
	if (!node || !g || !p || g->n == 1024) {
		return 1;
	}
	if (g->n > 0 ? ndeps != 1 || deps[0] != g->nodes[g->n - 1] : ndeps != 0) {
		logf_("cuGraphAddKernelNode: not a chain");
		return 1;
	}
	knode_t *k = calloc(1, sizeof *k);
	if (knode_set(k, p)) {
		free(k);
		return 1;
	}
	k->index = g->n;
	g->nodes[g->n++] = k;
	*node = k;
	return 0;
}

CUresult cuGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags) {
	NEED_CTX();
	FAULT("cuGraphInstantiateWithFlags");
	graph_t *g = graph;
	if (!exec || !g || flags) {
		return 1;
	}
	exec_t *e = calloc(1, sizeof *e);
	e->nodes = calloc(g->n ? g->n : 1, sizeof *e->nodes);
	e->n = g->n;
	for (int i = 0; i < g->n; i++) {
		knode_t *k = g->nodes[i];
		knode_params_t p = {k->fn, k->dims[0], k->dims[1], k->dims[2], k->dims[3], k->dims[4], k->dims[5],
				    k->shared, k->args, NULL, NULL, NULL};
		knode_set(&e->nodes[i], &p);
	}
	graphs_live++;
	*exec = e;
	logf_("cuGraphInstantiate nodes=%d", e->n);
	return 0;
}

CUresult cuGraphExecKernelNodeSetParams_v2(void *exec, void *node, const knode_params_t *p) {
	NEED_CTX();
	FAULT("cuGraphExecKernelNodeSetParams");
	exec_t *e = exec;
	knode_t *k = node;
	if (!e || !k || k->index >= e->n || !p || p->func != e->nodes[k->index].fn) {
		return 1;
	}
	logf_("cuGraphExecKernelNodeSetParams %d", k->index);
	return knode_set(&e->nodes[k->index], p);
}

CUresult cuGraphLaunch(void *exec, void *stream) {
	NEED_CTX();
	FAULT("cuGraphLaunch");
	exec_t *e = exec;
	if (!e) {
		return 400;
	}
	logf_("cuGraphLaunch nodes=%d", e->n);
	for (int i = 0; i < e->n; i++) {
		knode_t *k = &e->nodes[i];
		CUresult r = run_grid(k->fn, k->dims, k->shared, k->args, "graph");
		if (r) {
			return r;
		}
	}
	return 0;
}

CUresult cuGraphExecDestroy(void *exec) {
	exec_t *e = exec;
	for (int i = 0; i < e->n; i++) {
		free(e->nodes[i].store);
	}
	free(e->nodes);
	free(e);
	graphs_live--;
	logf_("cuGraphExecDestroy live=%d", graphs_live);
	return 0;
}

CUresult cuGraphDestroy(void *graph) {
	graph_t *g = graph;
	for (int i = 0; i < g->n; i++) {
		free(g->nodes[i]->store);
		free(g->nodes[i]);
	}
	free(g);
	graphs_live--;
	logf_("cuGraphDestroy live=%d", graphs_live);
	return 0;
}
#endif

#ifndef FAKE_NO_EVENTS
// Events hold the host's monotonic time of their last recording. Launches
// run to completion inside cuLaunchKernel, so a recorded event is always
// complete; cuEventQuery=600 in SF_FAKE_CUDA_FAIL makes one look pending.
// Creation and destruction are logged so tests can see none leaks. Build
// with -DFAKE_NO_EVENTS to leave the events out (an older driver).
typedef struct {
	long long ns;
	int recorded;
} event_t;

static long long mono_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

CUresult cuEventCreate(void **e, unsigned flags) {
	NEED_CTX();
	FAULT("cuEventCreate");
	if (!e || (flags != 0 && flags != 2)) { // 2: CU_EVENT_DISABLE_TIMING
		return 1;
	}
	*e = calloc(1, sizeof(event_t));
	logf_("cuEventCreate");
	return 0;
}

CUresult cuEventRecord(void *e, void *stream) {
	NEED_CTX();
	FAULT("cuEventRecord");
	if (!e) {
		return 400; // CUDA_ERROR_INVALID_HANDLE
	}
	event_t *ev = e;
	ev->ns = mono_ns();
	ev->recorded = 1;
	return 0;
}

// cuEventSynchronize returns at once: the work before a recording is done.
CUresult cuEventSynchronize(void *e) {
	NEED_CTX();
	FAULT("cuEventSynchronize");
	if (!e) {
		return 400;
	}
	logf_("cuEventSynchronize");
	return 0;
}

CUresult cuEventQuery(void *e) {
	NEED_CTX();
	FAULT("cuEventQuery");
	return e ? 0 : 400;
}

CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
	NEED_CTX();
	FAULT("cuEventElapsedTime");
	event_t *s = start, *t = end;
	if (!ms || !s || !t || !s->recorded || !t->recorded) {
		return 400;
	}
	*ms = (float)((double)(t->ns - s->ns) / 1e6);
	return 0;
}

CUresult cuEventDestroy_v2(void *e) {
	if (!e) {
		return 400;
	}
	free(e);
	logf_("cuEventDestroy");
	return 0;
}
#endif

#ifndef FAKE_NO_PROC_ADDRESS
// cuGetProcAddress_v2 maps the unversioned names to CUDA 12.0's symbols.
CUresult cuGetProcAddress_v2(const char *name, void **fn, int version, unsigned long long flags, int *status) {
	static const struct {
		const char *name;
		void *fn;
	} table[] = {
		{"cuInit", (void *)cuInit},
		{"cuDriverGetVersion", (void *)cuDriverGetVersion},
		{"cuGetErrorName", (void *)cuGetErrorName},
		{"cuDeviceGetCount", (void *)cuDeviceGetCount},
		{"cuDeviceGet", (void *)cuDeviceGet},
		{"cuDeviceGetName", (void *)cuDeviceGetName},
		{"cuDeviceTotalMem", (void *)cuDeviceTotalMem_v2},
		{"cuDeviceGetAttribute", (void *)cuDeviceGetAttribute},
		{"cuDevicePrimaryCtxRetain", (void *)cuDevicePrimaryCtxRetain},
		{"cuDevicePrimaryCtxRelease", (void *)cuDevicePrimaryCtxRelease_v2},
		{"cuCtxSetCurrent", (void *)cuCtxSetCurrent},
		{"cuStreamCreate", (void *)cuStreamCreate},
		{"cuStreamDestroy", (void *)cuStreamDestroy_v2},
		{"cuStreamSynchronize", (void *)cuStreamSynchronize},
		{"cuMemAlloc", (void *)cuMemAlloc_v2},
		{"cuMemFree", (void *)cuMemFree_v2},
		{"cuMemAllocAsync", (void *)cuMemAllocAsync},
		{"cuMemFreeAsync", (void *)cuMemFreeAsync},
		{"cuDeviceGetDefaultMemPool", (void *)cuDeviceGetDefaultMemPool},
		{"cuMemPoolSetAttribute", (void *)cuMemPoolSetAttribute},
		{"cuMemPoolTrimTo", (void *)cuMemPoolTrimTo},
		{"cuMemHostAlloc", (void *)cuMemHostAlloc},
		{"cuMemFreeHost", (void *)cuMemFreeHost},
		{"cuMemcpyHtoDAsync", (void *)cuMemcpyHtoDAsync_v2},
		{"cuMemcpyDtoHAsync", (void *)cuMemcpyDtoHAsync_v2},
		{"cuModuleLoadData", (void *)cuModuleLoadData},
		{"cuModuleUnload", (void *)cuModuleUnload},
		{"cuModuleGetFunction", (void *)cuModuleGetFunction},
		{"cuLaunchKernel", (void *)cuLaunchKernel},
#ifndef FAKE_NO_EVENTS
		{"cuEventCreate", (void *)cuEventCreate},
		{"cuEventRecord", (void *)cuEventRecord},
		{"cuEventQuery", (void *)cuEventQuery},
		{"cuEventElapsedTime", (void *)cuEventElapsedTime},
		{"cuEventDestroy", (void *)cuEventDestroy_v2},
		{"cuEventSynchronize", (void *)cuEventSynchronize},
#endif
#ifndef FAKE_NO_GRAPHS
		{"cuGraphCreate", (void *)cuGraphCreate},
		{"cuGraphAddKernelNode", (void *)cuGraphAddKernelNode_v2},
		{"cuGraphInstantiateWithFlags", (void *)cuGraphInstantiateWithFlags},
		{"cuGraphLaunch", (void *)cuGraphLaunch},
		{"cuGraphExecKernelNodeSetParams", (void *)cuGraphExecKernelNodeSetParams_v2},
		{"cuGraphExecDestroy", (void *)cuGraphExecDestroy},
		{"cuGraphDestroy", (void *)cuGraphDestroy},
#endif
	};
	*fn = NULL;
	if (flags != 0 || version != 12000) {
		logf_("cuGetProcAddress %s version %d flags %llu", name, version, flags);
		return 1;
	}
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		if (strcmp(table[i].name, name) == 0) {
			*fn = table[i].fn;
			if (status) {
				*status = 0;
			}
			return 0;
		}
	}
	return 500;
}
#endif
