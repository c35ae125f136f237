//go:build cgo && linux

// Kernel timing for the profiler (device.KernelTimer, see timing.go). While
// profiling is on, every launch is bracketed by two CUDA events recorded on
// the device's stream; a completed launch's duration is the time between
// them. CUDA events have no absolute time, so starts are measured from a
// reference event recorded when profiling is turned on, and placed on the
// host's clock by an estimate of the host time of that reference: the
// latest of its recording time and, over every launch, the launch's host
// time less its start's offset from the reference (no kernel starts before
// the host launched it).

#include "native.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

// sf_timed is a timed launch awaiting completion.
typedef struct {
	CUevent start, end;
	CUfunction fn;
	unsigned long long call;
	long long launched_ns; // host clock just before the launch
} sf_timed;

struct sf_timer {
	int on;
	sf_timed *q; // pending launches in launch order
	int n, cap;
	CUevent *spare; // events to reuse
	int nspare, spare_cap;
	sf_timed cur; // the launch between sf_timing_begin and sf_timing_end
	int has_cur;
	CUevent ref;
	long long base_ns; // the estimated host time of ref
};

static long long now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// take returns a spare event or a new one, NULL when none can be made.
static CUevent take(sf_cu_api *a, sf_timer *t) {
	if (t->nspare > 0) {
		return t->spare[--t->nspare];
	}
	CUevent e = NULL;
	if (a->cuEventCreate(&e, 0) != SF_CUDA_SUCCESS) {
		return NULL;
	}
	return e;
}

// give keeps e for reuse, or destroys it when it cannot be kept.
static void give(sf_cu_api *a, sf_timer *t, CUevent e) {
	if (!e) {
		return;
	}
	if (t->nspare == t->spare_cap) {
		int cap = t->spare_cap ? 2 * t->spare_cap : 64;
		CUevent *s = realloc(t->spare, (size_t)cap * sizeof *s);
		if (!s) {
			a->cuEventDestroy(e);
			return;
		}
		t->spare = s;
		t->spare_cap = cap;
	}
	t->spare[t->nspare++] = e;
}

void sf_timing_count(sf_ctx *c) {
	if (c->epoch != c->launch_epoch) {
		c->launch_epoch = c->epoch;
		c->calls++;
	}
}

void sf_timing_begin(sf_cu_api *a, sf_ctx *c) {
	sf_timing_count(c);
	sf_timer *t = c->timer;
	if (!t || !t->on) {
		return;
	}
	t->has_cur = 0;
	CUevent s = take(a, t), e = take(a, t);
	long long at = now_ns();
	if (!s || !e || a->cuEventRecord(s, c->stream) != SF_CUDA_SUCCESS) {
		give(a, t, s);
		give(a, t, e);
		return;
	}
	t->cur = (sf_timed){s, e, NULL, c->calls, at};
	t->has_cur = 1;
}

void sf_timing_end(sf_cu_api *a, sf_ctx *c, CUfunction f, CUresult launched) {
	sf_timer *t = c->timer;
	if (!t || !t->has_cur) {
		return;
	}
	t->has_cur = 0;
	if (launched == SF_CUDA_SUCCESS && a->cuEventRecord(t->cur.end, c->stream) == SF_CUDA_SUCCESS) {
		if (t->n == t->cap) {
			int cap = t->cap ? 2 * t->cap : 64;
			sf_timed *q = realloc(t->q, (size_t)cap * sizeof *q);
			if (q) {
				t->q = q;
				t->cap = cap;
			}
		}
		if (t->n < t->cap) {
			t->cur.fn = f;
			t->q[t->n++] = t->cur;
			return;
		}
	}
	give(a, t, t->cur.start);
	give(a, t, t->cur.end);
}

int sf_timing_on(sf_ctx *c) { return c->timer && c->timer->on; }

sf_status sf_timing_set(sf_cu_api *a, sf_ctx *c, int on) {
	if (on && !a->cuEventCreate) {
		return (sf_status){SF_CUDA_ERROR_NOT_SUPPORTED, "cuEventCreate"};
	}
	CUresult r = a->cuCtxSetCurrent(c->ctx);
	if (r != SF_CUDA_SUCCESS) {
		return (sf_status){r, "cuCtxSetCurrent"};
	}
	// Launches queued for a graph are not timed: they run before timing
	// starts (and while it is on nothing is queued).
	sf_status fl = sf_graph_flush(a, c);
	if (fl.code != 0) {
		return fl;
	}
	if (!c->timer) {
		if (!on) {
			return (sf_status){0, NULL};
		}
		c->timer = calloc(1, sizeof *c->timer);
		if (!c->timer) {
			return (sf_status){SF_CUDA_ERROR_OUT_OF_MEMORY, "calloc"};
		}
	}
	sf_timer *t = c->timer;
	if (on && !t->on && t->n == 0) {
		// A fresh reference for a new session; launches still pending keep
		// the old one until they are collected.
		if (!t->ref && (r = a->cuEventCreate(&t->ref, 0)) != SF_CUDA_SUCCESS) {
			t->ref = NULL;
			return (sf_status){r, "cuEventCreate"};
		}
		t->base_ns = now_ns();
		if ((r = a->cuEventRecord(t->ref, c->stream)) != SF_CUDA_SUCCESS) {
			return (sf_status){r, "cuEventRecord"};
		}
	}
	t->on = on;
	return (sf_status){0, NULL};
}

int sf_timing_collect(sf_cu_api *a, sf_ctx *c, sf_kernel_time *out, int max) {
	sf_timer *t = c->timer;
	if (!t || t->n == 0 || a->cuCtxSetCurrent(c->ctx) != SF_CUDA_SUCCESS) {
		return 0;
	}
	int k = 0, i = 0;
	for (; i < t->n && k < max; i++) {
		sf_timed *x = &t->q[i];
		CUresult r = a->cuEventQuery(x->end);
		if (r == SF_CUDA_ERROR_NOT_READY) {
			break;
		}
		float dur = 0, off = 0;
		if (r == SF_CUDA_SUCCESS && a->cuEventElapsedTime(&dur, x->start, x->end) == SF_CUDA_SUCCESS &&
		    a->cuEventElapsedTime(&off, t->ref, x->start) == SF_CUDA_SUCCESS) {
			long long off_ns = (long long)((double)off * 1e6);
			if (x->launched_ns - off_ns > t->base_ns) {
				t->base_ns = x->launched_ns - off_ns;
			}
			// start_ns holds the offset until the estimate is final.
			out[k++] = (sf_kernel_time){x->call, x->fn, off_ns, (long long)((double)dur * 1e6)};
		}
		give(a, t, x->start);
		give(a, t, x->end);
	}
	memmove(t->q, t->q + i, (size_t)(t->n - i) * sizeof *t->q);
	t->n -= i;
	for (int j = 0; j < k; j++) {
		out[j].start_ns += t->base_ns;
	}
	return k;
}

void sf_timing_free(sf_cu_api *a, sf_ctx *c) {
	sf_timer *t = c->timer;
	if (!t) {
		return;
	}
	for (int i = 0; i < t->n; i++) {
		a->cuEventDestroy(t->q[i].start);
		a->cuEventDestroy(t->q[i].end);
	}
	for (int i = 0; i < t->nspare; i++) {
		a->cuEventDestroy(t->spare[i]);
	}
	if (t->ref) {
		a->cuEventDestroy(t->ref);
	}
	free(t->q);
	free(t->spare);
	free(t);
	c->timer = NULL;
}
