#!/bin/bash
# Builds what run.sh needs into one folder (default .gpucheck/ at the
# repository root): the test binaries of the CUDA, Vulkan and WebGPU
# backends, the gpucheck benchmark, the PyTorch script, run.sh itself, and
# the Vulkan loader's Debian package for machines that lack one. Run it on
# a machine with Go (amd64 Linux); copy the folder to the GPU machine and run
# ./run.sh OUTDIR there. See docs/gpucheck.md.
set -euo pipefail
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
dest=${1:-$root/.gpucheck}
mkdir -p "$dest"
cd "$root"
# Stripped (-s -w): the folder must stay small enough to copy to a GPU machine.
go test -c -ldflags="-s -w" -o "$dest/cuda.test" ./cuda
go test -c -ldflags="-s -w" -o "$dest/vulkan.test" ./gpu/vulkan
go test -c -ldflags="-s -w" -o "$dest/webgpu.test" ./gpu/webgpu
go build -ldflags="-s -w" -tags shaderflow_nowebgpu -o "$dest/gpucheck" ./tools/gpucheck
cp tools/gpucheck/run.sh tools/gpucheck/torch_cuda.py "$dest/"
if [ ! -e "$dest/libvulkan1.deb" ] && command -v apt-get >/dev/null; then
	(cd "$dest" && apt-get download libvulkan1 >/dev/null 2>&1 && mv libvulkan1_*.deb libvulkan1.deb) ||
		echo "build.sh: could not download libvulkan1; run.sh will use the GPU machine's loader" >&2
fi
du -sh "$dest"
