// The host prelude of the fake NVRTC: what lets CUDA C kernels compile as
// host C++ for the test double. The grid's indices are thread-locals that
// sf_fake_block sets for each simulated thread; __global__ and __device__
// mean nothing, __shared__ is one static per OS thread (blocks run one after
// another, so it is the running block's); SF_CHECK throws when an access
// leaves every allocation (the fake driver's checker decides), which the
// entry shim turns into a launch failure. The fake NVRTC appends one shim
// per __global__ function: NAME__sf_host(args) calls it with the parameters
// the driver was given, NAME__sf_nargs counts them; and sf_fake_barriers,
// whether the source calls __syncthreads or a warp shuffle (which meets
// at barriers here).

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <type_traits>
#include <utility>

#define __global__
#define __device__

struct sf_dim3 {
	unsigned x, y, z;
};
static thread_local sf_dim3 threadIdx, blockIdx, blockDim, gridDim;

#define __shared__ static thread_local

// sf_fake_checker is set by the fake driver after loading the module.
extern "C" int (*sf_fake_checker)(const void *, size_t);
int (*sf_fake_checker)(const void *, size_t) = 0;

struct sf_fake_fault {};

static inline void sf_fake_check(const void *p, size_t n) {
	if (sf_fake_checker && !sf_fake_checker(p, n)) {
		throw sf_fake_fault();
	}
}
#define SF_CHECK(p, n) sf_fake_check((const void *)(p), (n))

template <typename... A, size_t... I>
static void sf_fake_apply(void (*f)(A...), void **args, std::index_sequence<I...>) {
	f(*(typename std::decay<A>::type *)args[I]...);
}

// sf_fake_call runs f with args and returns 1 when an access faulted.
template <typename... A> static int sf_fake_call(void (*f)(A...), void **args) {
	try {
		sf_fake_apply(f, args, std::index_sequence_for<A...>{});
	} catch (sf_fake_fault &) {
		return 1;
	}
	return 0;
}

template <typename... A> static constexpr int sf_fake_nargs(void (*)(A...)) { return sizeof...(A); }

// sf_fake_argsize is the size of f's parameter i, as a driver reads it from
// a kernel's metadata.
template <typename... A> static unsigned long long sf_fake_argsize(void (*)(A...), int i) {
	const unsigned long long s[] = {sizeof(typename std::decay<A>::type)..., 0};
	return i >= 0 && i < (int)sizeof...(A) ? s[i] : 0;
}

// sf_fake_barriers is 1 when the source calls __syncthreads (the fake NVRTC
// defines it after the source).
extern "C" const int sf_fake_barriers;

// A block whose kernel has barriers runs its threads as coroutines, each on
// its own stack: a thread runs until it reaches __syncthreads or returns,
// then the next one runs; once every thread waits at the barrier, all go on.
enum { sf_fake_ready, sf_fake_waiting, sf_fake_done };
enum { sf_fake_stack = 64 << 10 };

struct sf_fake_thread {
	ucontext_t ctx;
	sf_dim3 idx;
	int state, fault;
};

// The running block: its threads, the scheduler's context and the kernel.
static thread_local sf_fake_thread *sf_fake_threads, *sf_fake_cur;
static thread_local char *sf_fake_stacks;
static thread_local unsigned sf_fake_cap;
static thread_local ucontext_t sf_fake_sched;
static thread_local int (*sf_fake_host)(void **);
static thread_local void **sf_fake_args;

static void __syncthreads(void) {
	if (!sf_fake_cur) {
		return; // a kernel run without coroutines: sf_fake_barriers said none
	}
	sf_fake_cur->state = sf_fake_waiting;
	swapcontext(&sf_fake_cur->ctx, &sf_fake_sched);
}

// __shfl_xor_sync gives each thread the value v of the thread of its warp
// whose lane is its own xor d. The block's threads are coroutines here:
// each stores v in its slot, all meet at a barrier, read the partner's
// slot and meet again before a slot is reused, so every thread of the
// block must call it at the same points (the backend's kernels do).
static thread_local unsigned long long sf_fake_lanes[1024];

template <typename T> static T __shfl_xor_sync(unsigned mask, T v, int d) {
	static_assert(sizeof(T) <= sizeof(unsigned long long), "a shuffle moves at most 8 bytes");
	const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	const unsigned n = blockDim.x * blockDim.y * blockDim.z;
	memcpy(&sf_fake_lanes[t], &v, sizeof v);
	__syncthreads();
	const unsigned src = (t & ~31u) | ((t & 31u) ^ ((unsigned)d & 31u));
	T r = v;
	if (src < n) {
		memcpy(&r, &sf_fake_lanes[src], sizeof r);
	}
	__syncthreads();
	return r;
}

static void sf_fake_start(void) {
	sf_fake_cur->fault = sf_fake_host(sf_fake_args);
	sf_fake_cur->state = sf_fake_done;
	// Returning resumes uc_link, the scheduler.
}

// sf_fake_block runs block (bx, by, bz) of a launch of host over a grid of
// dims[0..2] blocks of dims[3..5] threads. It returns 0, 1 when an access
// faulted, or 2 when some threads wait at a barrier that others, having
// returned, never reach (a kernel that would hang or misbehave on a GPU).
extern "C" int sf_fake_block(int (*host)(void **), void **args, const unsigned *dims, unsigned bx, unsigned by,
			     unsigned bz) {
	gridDim = {dims[0], dims[1], dims[2]};
	blockDim = {dims[3], dims[4], dims[5]};
	blockIdx = {bx, by, bz};
	const unsigned n = dims[3] * dims[4] * dims[5];
	if (!sf_fake_barriers) {
		for (unsigned t = 0; t < n; t++) {
			threadIdx = {t % dims[3], t / dims[3] % dims[4], t / dims[3] / dims[4]};
			if (host(args)) {
				return 1;
			}
		}
		return 0;
	}
	if (n > sf_fake_cap) {
		free(sf_fake_threads);
		free(sf_fake_stacks);
		sf_fake_threads = (sf_fake_thread *)calloc(n, sizeof(sf_fake_thread));
		sf_fake_stacks = (char *)malloc((size_t)n * sf_fake_stack);
		sf_fake_cap = n;
	}
	sf_fake_host = host;
	sf_fake_args = args;
	for (unsigned t = 0; t < n; t++) {
		sf_fake_thread *th = &sf_fake_threads[t];
		th->idx = {t % dims[3], t / dims[3] % dims[4], t / dims[3] / dims[4]};
		th->state = sf_fake_ready;
		th->fault = 0;
		getcontext(&th->ctx);
		th->ctx.uc_stack.ss_sp = sf_fake_stacks + (size_t)t * sf_fake_stack;
		th->ctx.uc_stack.ss_size = sf_fake_stack;
		th->ctx.uc_link = &sf_fake_sched;
		makecontext(&th->ctx, sf_fake_start, 0);
	}
	for (;;) {
		unsigned waiting = 0, done = 0;
		for (unsigned t = 0; t < n; t++) {
			sf_fake_thread *th = &sf_fake_threads[t];
			if (th->state == sf_fake_done) {
				done++;
				continue;
			}
			th->state = sf_fake_ready;
			sf_fake_cur = th;
			threadIdx = th->idx;
			swapcontext(&sf_fake_sched, &th->ctx);
			sf_fake_cur = NULL;
			if (th->fault) {
				return 1; // the other threads' stacks are abandoned
			}
			if (th->state == sf_fake_waiting) {
				waiting++;
			} else {
				done++;
			}
		}
		if (done == n) {
			return 0;
		}
		if (waiting != n) {
			return 2;
		}
	}
}
