// Command gpucheck measures Shaderflow's GPU kernels against PyTorch on the
// same machine and writes report.md and report.json into a folder. It is the
// benchmark half of tools/gpucheck/run.sh, which a machine with an NVIDIA GPU
// and no Go toolchain runs from binaries that tools/gpucheck/build.sh makes
// (see docs/gpucheck.md).
//
//	gpucheck -backend cuda -out DIR [-torch torch_cuda.py] [-python python3]
//
// Every case is timed the same way on both sides: a few untimed warm-up
// runs, then each timed run is one operation followed by a wait for the
// device (Realize here, torch.cuda.synchronize there), and the report gives
// the median. Rates are reported with the ratio to the device-to-device copy
// bandwidth PyTorch measures in the same run (the machine's limit) and to
// PyTorch's time for the same case.
package main
