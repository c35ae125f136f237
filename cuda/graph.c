//go:build cgo && linux

// CUDA graphs for repeated sequences of launches (see graph.go). While
// graphs are on, launches are queued with their parameters copied; the
// queue is flushed by the next wrapper that touches the stream otherwise
// (a transfer, a sync, a synchronous free, cuBLAS, profiling, close) or
// when it holds SF_GRAPH_MAX_OPS operations. A flush of two or more
// launches whose sequence (functions, grid and block sizes, parameter
// sizes) was flushed before builds a graph of them, a chain of kernel
// nodes, instantiates it and launches it; a later flush of the same
// sequence updates the nodes whose parameters changed
// (cuGraphExecKernelNodeSetParams) and launches the same executable
// graph. A sequence seen for the first time, or a queue of one launch,
// runs as plain launches. Stream-ordered frees queued behind launches are
// issued after them. A failure to build, update or launch a graph runs the
// queue as plain launches and turns graphs off for the device (the stats
// keep the result); a failing plain launch is the flush's result.

#include "native.h"

#include <stdlib.h>
#include <string.h>

#define SF_GRAPH_MAX_OPS 1024
#define SF_GRAPH_MAX_ARGS 4
#define SF_GRAPH_CACHE 16
#define SF_GRAPH_SEEN 64

// sf_gop is a queued launch, or a free (fn NULL) of ptr.
typedef struct {
	CUfunction fn;
	unsigned grid, block;
	int nargs;
	size_t off[SF_GRAPH_MAX_ARGS], size[SF_GRAPH_MAX_ARGS]; // the arguments' bytes in the blob
	CUdeviceptr ptr;
} sf_gop;

// sf_gentry is an instantiated graph: its launches (no frees), their
// parameters as last set, and a node per launch.
typedef struct {
	unsigned long long hash, used;
	int n;
	sf_gop *ops;
	unsigned char *blob;
	size_t len;
	CUgraph graph;
	CUgraphExec exec;
	CUgraphNode *nodes;
} sf_gentry;

struct sf_graphs {
	int on;
	sf_gop q[SF_GRAPH_MAX_OPS];
	int n, launches;
	unsigned char *blob;
	size_t len, cap;
	unsigned long long seen[SF_GRAPH_SEEN];
	int nseen;
	sf_gentry cache[SF_GRAPH_CACHE];
	unsigned long long tick;
	sf_graph_stats stats;
};

#define SF_OK ((sf_status){0, NULL})

sf_status sf_graph_set(sf_cu_api *a, sf_ctx *c, int on) {
	if (on && !a->cuGraphCreate) {
		return (sf_status){SF_CUDA_ERROR_NOT_SUPPORTED, "cuGraphCreate"};
	}
	if (!on) {
		sf_status st = sf_graph_flush(a, c);
		if (c->graphs) {
			c->graphs->on = 0;
		}
		return st;
	}
	if (!c->graphs && !(c->graphs = calloc(1, sizeof *c->graphs))) {
		return (sf_status){SF_CUDA_ERROR_OUT_OF_MEMORY, "calloc"};
	}
	c->graphs->on = 1;
	return SF_OK;
}

int sf_graph_active(sf_cu_api *a, sf_ctx *c) {
	return c->graphs && c->graphs->on && !c->graphs->stats.broken && !(c->timer && sf_timing_on(c));
}

// reserve makes room for n more bytes in the blob.
static int reserve(sf_graphs *g, size_t n) {
	if (g->len + n <= g->cap) {
		return 0;
	}
	size_t cap = g->cap ? g->cap : 1 << 16;
	while (cap < g->len + n) {
		cap *= 2;
	}
	unsigned char *b = realloc(g->blob, cap);
	if (!b) {
		return -1;
	}
	g->blob = b;
	g->cap = cap;
	return 0;
}

sf_status sf_graph_enqueue(sf_cu_api *a, sf_ctx *c, CUfunction f, unsigned grid, unsigned block, int nargs,
			   void *const *args, const size_t *sizes) {
	sf_graphs *g = c->graphs;
	if (g->n == SF_GRAPH_MAX_OPS) {
		sf_status st = sf_graph_flush(a, c);
		if (st.code) {
			return st;
		}
	}
	size_t total = 0;
	for (int i = 0; i < nargs; i++) {
		total += (sizes[i] + 15) & ~(size_t)15;
	}
	if (nargs > SF_GRAPH_MAX_ARGS || reserve(g, total)) {
		return (sf_status){SF_CUDA_ERROR_OUT_OF_MEMORY, "sf_graph_enqueue"};
	}
	sf_timing_count(c);
	sf_gop *op = &g->q[g->n++];
	*op = (sf_gop){f, grid, block, nargs, {0}, {0}, 0};
	for (int i = 0; i < nargs; i++) {
		op->off[i] = g->len;
		op->size[i] = sizes[i];
		memcpy(g->blob + g->len, args[i], sizes[i]);
		g->len += (sizes[i] + 15) & ~(size_t)15;
	}
	g->launches++;
	return SF_OK;
}

int sf_graph_defer_free(sf_ctx *c, CUdeviceptr p) {
	sf_graphs *g = c->graphs;
	if (!g || g->launches == 0 || g->n == SF_GRAPH_MAX_OPS) {
		return 0;
	}
	g->q[g->n++] = (sf_gop){NULL, 0, 0, 0, {0}, {0}, p};
	return 1;
}

// same reports whether launches x (in blob bx) and y have the same function,
// sizes and argument sizes; with params, the same argument bytes too.
static int same(const sf_gop *x, const unsigned char *bx, const sf_gop *y, const unsigned char *by, int params) {
	if (x->fn != y->fn || x->grid != y->grid || x->block != y->block || x->nargs != y->nargs) {
		return 0;
	}
	for (int i = 0; i < x->nargs; i++) {
		if (x->size[i] != y->size[i] || (params && memcmp(bx + x->off[i], by + y->off[i], x->size[i]) != 0)) {
			return 0;
		}
	}
	return 1;
}

// shape_hash hashes the queue's launches' functions and sizes (FNV-1a).
static unsigned long long shape_hash(const sf_graphs *g) {
	unsigned long long h = 1469598103934665603ULL;
#define SF_MIX(v)                                                                                                      \
	do {                                                                                                           \
		h ^= (unsigned long long)(v);                                                                          \
		h *= 1099511628211ULL;                                                                                 \
	} while (0)
	for (int i = 0; i < g->n; i++) {
		const sf_gop *op = &g->q[i];
		if (!op->fn) {
			continue;
		}
		SF_MIX((uintptr_t)op->fn);
		SF_MIX(op->grid);
		SF_MIX(op->block);
		for (int k = 0; k < op->nargs; k++) {
			SF_MIX(op->size[k]);
		}
	}
#undef SF_MIX
	return h;
}

// node_params fills p with op's launch, its arguments in blob.
static void node_params(sf_kernel_node_params *p, void **args, const sf_gop *op, unsigned char *blob) {
	for (int k = 0; k < op->nargs; k++) {
		args[k] = blob + op->off[k];
	}
	*p = (sf_kernel_node_params){op->fn, op->grid, 1, 1, op->block, 1, 1, 0, args, NULL, NULL, NULL};
}

static void drop(sf_cu_api *a, sf_gentry *e) {
	if (e->exec) {
		a->cuGraphExecDestroy(e->exec);
	}
	if (e->graph) {
		a->cuGraphDestroy(e->graph);
	}
	free(e->ops);
	free(e->blob);
	free(e->nodes);
	memset(e, 0, sizeof *e);
}

// find returns the cached graph of the queue's launches, or NULL.
static sf_gentry *find(sf_graphs *g, unsigned long long h) {
	for (int i = 0; i < SF_GRAPH_CACHE; i++) {
		sf_gentry *e = &g->cache[i];
		if (!e->exec || e->hash != h || e->n != g->launches) {
			continue;
		}
		int k = 0, ok = 1;
		for (int j = 0; j < g->n && ok; j++) {
			if (g->q[j].fn) {
				ok = same(&g->q[j], g->blob, &e->ops[k++], e->blob, 0);
			}
		}
		if (ok) {
			return e;
		}
	}
	return NULL;
}

// fail turns graphs off with result r of call and returns 0, so the
// caller runs the queue as plain launches.
static int fail(sf_graphs *g, CUresult r, const char *call) {
	g->stats.failures++;
	g->stats.broken = r;
	g->stats.broken_call = call;
	return 0;
}

// replay updates e's changed nodes to the queue's parameters and launches
// it; it returns 0 when the graph could not be used.
static int replay(sf_cu_api *a, sf_ctx *c, sf_graphs *g, sf_gentry *e) {
	int k = 0;
	for (int j = 0; j < g->n; j++) {
		const sf_gop *op = &g->q[j];
		if (!op->fn) {
			continue;
		}
		sf_gop *old = &e->ops[k];
		if (!same(op, g->blob, old, e->blob, 1)) {
			for (int i = 0; i < op->nargs; i++) {
				memcpy(e->blob + old->off[i], g->blob + op->off[i], op->size[i]);
			}
			void *args[SF_GRAPH_MAX_ARGS];
			sf_kernel_node_params p;
			node_params(&p, args, old, e->blob);
			CUresult r = a->cuGraphExecKernelNodeSetParams(e->exec, e->nodes[k], &p);
			if (r != SF_CUDA_SUCCESS) {
				drop(a, e);
				return fail(g, r, "cuGraphExecKernelNodeSetParams");
			}
			g->stats.node_updates++;
		}
		k++;
	}
	CUresult r = a->cuGraphLaunch(e->exec, c->stream);
	if (r != SF_CUDA_SUCCESS) {
		drop(a, e);
		return fail(g, r, "cuGraphLaunch");
	}
	e->used = ++g->tick;
	g->stats.replays++;
	return 1;
}

// build makes, instantiates and launches the graph of the queue's launches
// in the least recently used cache slot; it returns 0 when it could not.
static int build(sf_cu_api *a, sf_ctx *c, sf_graphs *g, unsigned long long h) {
	sf_gentry *e = &g->cache[0];
	for (int i = 1; i < SF_GRAPH_CACHE && e->exec; i++) {
		if (!g->cache[i].exec || g->cache[i].used < e->used) {
			e = &g->cache[i];
		}
	}
	drop(a, e);
	e->ops = malloc((size_t)g->launches * sizeof *e->ops);
	e->nodes = calloc((size_t)g->launches, sizeof *e->nodes);
	e->blob = malloc(g->len ? g->len : 1);
	if (!e->ops || !e->nodes || !e->blob) {
		drop(a, e);
		return 0;
	}
	memcpy(e->blob, g->blob, g->len);
	e->len = g->len;
	CUresult r = a->cuGraphCreate(&e->graph, 0);
	if (r != SF_CUDA_SUCCESS) {
		e->graph = NULL;
		drop(a, e);
		return fail(g, r, "cuGraphCreate");
	}
	int k = 0;
	for (int j = 0; j < g->n; j++) {
		if (!g->q[j].fn) {
			continue;
		}
		e->ops[k] = g->q[j];
		void *args[SF_GRAPH_MAX_ARGS];
		sf_kernel_node_params p;
		node_params(&p, args, &e->ops[k], e->blob);
		r = a->cuGraphAddKernelNode(&e->nodes[k], e->graph, k ? &e->nodes[k - 1] : NULL, k ? 1 : 0, &p);
		if (r != SF_CUDA_SUCCESS) {
			drop(a, e);
			return fail(g, r, "cuGraphAddKernelNode");
		}
		k++;
	}
	e->n = k;
	r = a->cuGraphInstantiateWithFlags(&e->exec, e->graph, 0);
	if (r != SF_CUDA_SUCCESS) {
		e->exec = NULL;
		drop(a, e);
		return fail(g, r, "cuGraphInstantiateWithFlags");
	}
	e->hash = h;
	g->stats.built++;
	r = a->cuGraphLaunch(e->exec, c->stream);
	if (r != SF_CUDA_SUCCESS) {
		drop(a, e);
		return fail(g, r, "cuGraphLaunch");
	}
	e->used = ++g->tick;
	return 1;
}

// seen reports whether hash h was flushed before, remembering it if not.
static int seen(sf_graphs *g, unsigned long long h) {
	int n = g->nseen < SF_GRAPH_SEEN ? g->nseen : SF_GRAPH_SEEN;
	for (int i = 0; i < n; i++) {
		if (g->seen[i] == h) {
			return 1;
		}
	}
	g->seen[g->nseen++ % SF_GRAPH_SEEN] = h;
	return 0;
}

sf_status sf_graph_flush(sf_cu_api *a, sf_ctx *c) {
	sf_graphs *g = c->graphs;
	if (!g || g->n == 0) {
		return SF_OK;
	}
	sf_status st = SF_OK;
	CUresult r = a->cuCtxSetCurrent(c->ctx);
	if (r != SF_CUDA_SUCCESS) {
		st = (sf_status){r, "cuCtxSetCurrent"};
		goto out;
	}
	g->stats.segments++;
	int done = 0;
	if (g->launches >= 2 && !g->stats.broken) {
		unsigned long long h = shape_hash(g);
		sf_gentry *e = find(g, h);
		if (e) {
			done = replay(a, c, g, e);
		} else if (seen(g, h)) {
			done = build(a, c, g, h);
		}
	}
	if (!done) {
		g->stats.eager++;
		for (int j = 0; j < g->n; j++) {
			const sf_gop *op = &g->q[j];
			if (!op->fn) {
				continue;
			}
			void *args[SF_GRAPH_MAX_ARGS];
			for (int k = 0; k < op->nargs; k++) {
				args[k] = g->blob + op->off[k];
			}
			r = a->cuLaunchKernel(op->fn, op->grid, 1, 1, op->block, 1, 1, 0, c->stream, args, NULL);
			if (r != SF_CUDA_SUCCESS) {
				c->failed_fn = op->fn;
				st = (sf_status){r, "cuLaunchKernel"};
				break;
			}
		}
	}
	for (int j = 0; j < g->n; j++) {
		if (!g->q[j].fn) {
			CUresult fr = a->cuMemFreeAsync(g->q[j].ptr, c->stream);
			if (fr != SF_CUDA_SUCCESS && st.code == 0) {
				st = (sf_status){fr, "cuMemFreeAsync"};
			}
		}
	}
out:
	g->n = 0;
	g->launches = 0;
	g->len = 0;
	return st;
}

sf_status sf_cu_flush(sf_cu_api *a, sf_ctx *c) { return sf_graph_flush(a, c); }

void sf_graph_stats_get(sf_ctx *c, sf_graph_stats *out) {
	memset(out, 0, sizeof *out);
	if (c->graphs) {
		*out = c->graphs->stats;
	}
}

void sf_graph_free(sf_cu_api *a, sf_ctx *c) {
	sf_graphs *g = c->graphs;
	if (!g) {
		return;
	}
	for (int i = 0; i < SF_GRAPH_CACHE; i++) {
		drop(a, &g->cache[i]);
	}
	free(g->blob);
	free(g);
	c->graphs = NULL;
}
