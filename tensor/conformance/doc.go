// Package conformance is Shaderflow's cross-backend conformance suite: every
// tensor operation checked against the independent float64 reference in
// package ref, on every backend that is present.
//
// A backend's tests call it in one line:
//
//	func TestConformance(t *testing.T) { conformance.Run(t, "cpu") }
//
// Run opens the backend (skipping when it is unavailable, unless the
// environment variable SHADERFLOW_REQUIRE_BACKENDS lists it, comma-separated,
// or says "all") and runs every case twice, with kernel fusion on and off, as
// subtests named fusion=on|off/<group>/<op>:<dtype>:<shapes>:<layout>.
//
// Inputs are fresh random numbers on every run. The seed is printed in every
// failure message and SHADERFLOW_SEED=<seed> repeats a run; each case draws
// from its own stream derived from the seed and its name, so one case can be
// repeated alone with go test -run. Before a case's operation runs, the
// device's memory pool is filled with NaN garbage of the output's size, so an
// output element the backend never writes cannot pass.
//
// Tolerances follow the dtype (float32 about 1e-5 relative, float16 and
// bfloat16 about two units in the last place), grow with sqrt(n) times the
// l2 norm of the terms for reductions and with the inner size for matrix
// products and convolutions; integer, boolean, max/min and indexing results
// must be exact.
//
// Beyond per-op checks the suite covers edge cases (softmax of ±1e4 and -Inf
// logits, NaN propagation, empty reductions, the panic messages of programmer
// errors), kernel counts with fusion on and off, a flat memory pool over 10 000
// scoped iterations, and, when the front end has autograd, gradients against
// central differences of the float64 reference.
//
// Random programs (group "graphs", and graph_grad cases in "grad") chain
// elementwise ops, broadcasts, views, reductions, products and softmaxes
// over a few inputs, some non-contiguous, realizing intermediates at random
// points; each value carries a first-order bound on its float32 error, and
// the outputs must be within four times it. The differentiable ones (smooth
// ops only) check every input's gradient against central differences. A
// failure prints the program. The CPU draws 48 and 24 of them a run, other
// backends 12 and 8 (each new fused program is a compile there). Package
// tensor/torchdiff draws such programs too and compares them with PyTorch
// where it is installed; these need no PyTorch, so they also run on the
// CUDA test double, under qemu for arm64 and on a GPU machine without
// Python, and they add convolutions, pooling and index selection.
//
// Large cases (a 513×1027 matrix and the like) are skipped under go test
// -short. SHADERFLOW_FUSION=0 (or 1) limits the run to fusion off (or on).
package conformance
