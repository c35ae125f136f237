// The host prelude of the fake NVRTC: what lets CUDA C kernels compile as
// host C++ for the test double. The grid's indices are thread-locals that
// the fake driver's launch loop sets through sf_fake_ids; __global__ and
// __device__ mean nothing; SF_CHECK throws when an access leaves every
// allocation (the fake driver's checker decides), which the entry shim
// turns into a launch failure. The fake NVRTC appends one shim per
// __global__ function: NAME__sf_host(args) calls it with the parameters the
// driver was given, NAME__sf_nargs counts them.

#include <stddef.h>
#include <type_traits>
#include <utility>

#define __global__
#define __device__

struct sf_dim3 {
	unsigned x, y, z;
};
static thread_local sf_dim3 threadIdx, blockIdx, blockDim, gridDim;

extern "C" void sf_fake_ids(unsigned block, unsigned thread, unsigned grid, unsigned size) {
	blockIdx = {block, 0, 0};
	threadIdx = {thread, 0, 0};
	gridDim = {grid, 1, 1};
	blockDim = {size, 1, 1};
}

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
