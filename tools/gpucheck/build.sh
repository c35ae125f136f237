#!/bin/bash
# Builds what run.sh needs into one folder (default .gpucheck/ at the
# repository root): the test binaries of the CUDA, Vulkan and WebGPU
# backends, the gpucheck benchmark, the demo with Fashion-MNIST for the
# training comparison, the PyTorch script, run.sh itself, and the Vulkan
# loader's Debian packages for machines that lack them. Run it on
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
# BenchmarkAdd (unscoped against scoped loops) for CUDA and Vulkan.
go test -c -ldflags="-s -w" -tags shaderflow_nowebgpu -o "$dest/backends.test" ./tensor/backends
# The demo trains the MLP against PyTorch CUDA (--train mlp --bench) on
# Fashion-MNIST, which GPU machines lack: the Debian package's files go
# along (about 30 MB).
# Without WebGPU (the training comparison runs on CUDA): 9 MB smaller.
go build -ldflags="-s -w" -tags shaderflow_nowebgpu -o "$dest/demo" ./cmd/demo
fashion=${SHADERFLOW_DATA:-/usr/share/datasets/fashion-mnist}
if [ -e "$fashion/train-images-idx3-ubyte.gz" ]; then
	mkdir -p "$dest/fashion-mnist"
	cp "$fashion"/*-ubyte.gz "$dest/fashion-mnist/"
else
	echo "build.sh: no Fashion-MNIST in $fashion (Debian: dataset-fashion-mnist); run.sh will skip the training comparison" >&2
fi
# The GPT's corpus for --train gpt on the GPU (GPU machines lack the bible
# program): the King James Bible as the demo reads it (Debian's bible-kjv-text).
if command -v bible >/dev/null && [ -e /usr/lib/bible.data ]; then
	bible -l79 Gen1:1-Rev22:21 >"$dest/kjv.txt"
else
	echo "build.sh: no bible program (Debian: bible-kjv-text); run.sh will skip the GPT run" >&2
fi
cp tools/gpucheck/run.sh tools/gpucheck/torch_cuda.py "$dest/"
# The Vulkan loader and the GL dispatch libraries NVIDIA's Vulkan driver
# needs, for GPU machines that have the driver but not these (run.sh
# unpacks them beside itself, never into the system).
if [ ! -d "$dest/vk-debs" ] && command -v apt-get >/dev/null; then
	mkdir -p "$dest/vk-debs"
	(cd "$dest/vk-debs" && apt-get download libvulkan1 libglvnd0 libglx0 libegl1 libgl1 libopengl0 libgles2 >/dev/null 2>&1) ||
		echo "build.sh: could not download the Vulkan loader's packages; run.sh will use the GPU machine's" >&2
fi
du -sh "$dest"
