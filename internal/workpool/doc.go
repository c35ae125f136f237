// Package workpool keeps the helper goroutines that join the CPU backend's
// parallel kernels: its elementwise, reduction and convolution loops and
// its matrix products (cpu/internal/gemm) share one pool, so that no more
// helpers poll for work than there are processors to run them. The data
// loader (nn/data) hands them the gathering of its next batch, which they
// do between kernels while the training loop builds its next graph.
//
// A kernel offers itself to helpers and starts working at once on its own
// goroutine; helpers that join share what is left. Waking a parked
// goroutine costs tens of microseconds on a virtual machine, as long as a
// small kernel, so a helper that finishes polls for the next offer for a
// while (Spin) before it parks: back-to-back kernels of a training step find
// it awake. Likewise a worker waiting for the others' last tasks polls for
// a while (Await) before it yields or blocks. On a machine with more
// runnable threads than cores that polling only takes cores from other
// threads; the matrix products detect it and Hold the helpers, which then
// park at once until the hold ends.
package workpool
