// Package torchdiff is a differential test of Shaderflow against PyTorch.
//
// It generates random, seeded programs: chains of elementwise operations with
// broadcasting, views (Transpose, Permute, Slice, Narrow, Expand, Reshape,
// Squeeze, Unsqueeze, Flatten), reductions with and without kept dimensions,
// MatMul with batch broadcasting, Softmax and LogSoftmax, comparisons feeding
// Where, Clamp, Pow and round trips through float16 and bfloat16. Each
// program runs in Shaderflow on a device (forward and backward of a
// random-weighted sum of its output) and, through one Python process per
// test, in PyTorch in float32 and float64. Shaderflow's values and gradients
// must match PyTorch's float32 ones within a bound made of a relative and an
// absolute part scaled to the program, widened by how far PyTorch's own
// float32 result lies from its float64 one (the program's conditioning);
// NaN must meet NaN and an infinity one of the same sign.
//
// The test in this package runs the programs on every backend that opens,
// with fusion on and off. It is skipped when the Python interpreter
// (/usr/bin/python3, or SHADERFLOW_TORCH_PYTHON) cannot import torch, unless
// SHADERFLOW_REQUIRE_TORCH=1 makes that a failure. SHADERFLOW_SEED changes
// the base seed of the run, TORCHDIFF_PROGRAM=<seed> runs one program alone,
// TORCHDIFF_COUNT overrides the number of programs per backend, and
// SHADERFLOW_REQUIRE_BACKENDS makes a named backend's absence a failure.
// Semantic differences from PyTorch that the generator avoids on purpose are
// listed in docs/pytorch-differences.md.
package torchdiff
