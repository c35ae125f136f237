#!/bin/bash
# Runs Shaderflow's GPU checks on a machine with an NVIDIA GPU, from the
# folder build.sh made (no Go needed): the CUDA kernel tests and conformance
# suite, the Vulkan and WebGPU conformance suites on the same GPU, the CUDA
# kernel tests under compute-sanitizer (memcheck and racecheck), the
# benchmarks beside PyTorch CUDA (a training step with CUDA graphs off and
# on among them), the host time per kernel launch with and without graphs,
# and MLP and CNN training epochs against PyTorch CUDA (kernels compiled in
# the epoch or cached; the MLP also with CUDA graphs on and with cuBLAS off). Writes summary.md and the logs and reports into OUTDIR. Each step has
# a time limit so that the whole stays within about ten minutes.
# Usage: ./run.sh OUTDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
cd "$here"
summary=$out/summary.md
echo "# gpucheck run, $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$summary"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv >>"$summary" 2>&1

# The Vulkan loader and GL dispatch libraries: the machine's, else the
# packaged ones unpacked here (not into the system).
if ! ldconfig -p | grep -q 'libvulkan.so.1' && [ -d vk-debs ]; then
	for f in vk-debs/*.deb; do dpkg -x "$f" "$here/vk"; done
	export LD_LIBRARY_PATH="$here/vk/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -e $icd ] && [ ! -e /usr/share/vulkan/icd.d/nvidia_icd.json ] && [ ! -e /etc/vulkan/icd.d/nvidia_icd.json ]; then
	export VK_DRIVER_FILES=$icd
fi

# count summarizes a go test -v log: passed and failed tests, the first failures.
count() {
	echo "- $1: exit $2; $(grep -c -- '--- PASS' "$3") passed, $(grep -c -- '--- FAIL' "$3") failed, $(grep -c -- '--- SKIP' "$3") skipped" >>"$summary"
	grep -- '--- FAIL' "$3" | head -15 | sed 's/^/    /' >>"$summary"
}

# The three backends' suites run side by side (correctness only), each split
# into shards (SHADERFLOW_CONFORMANCE_SHARD) so that the compiles of new
# kernel signatures use the machine's cores: CUDA's whole suite in 8 shards
# beside its kernel tests, the whole suite again with CUDA graphs on (fusion
# on) in 4 shards, and Vulkan's and WebGPU's -short suites in 2 shards each.
limit=${CONFORMANCE_LIMIT:-170}
# GPUCHECK_SKIP lists steps to leave out where device time is short:
# graphs (the training step's epoch with graphs), cnn, gpt.
skip() { [[ " ${GPUCHECK_SKIP:-} " == *" $1 "* ]]; }
shards=8
pids=()
SHADERFLOW_REQUIRE_BACKENDS=cuda timeout $limit ./cuda.test -test.run 'TestHardware' -test.v -test.timeout $((limit - 5))s >"$out/cuda-kernels.log" 2>&1 &
pids+=($!)
for i in $(seq 0 $((shards - 1))); do
	SHADERFLOW_CONFORMANCE_SHARD=$i/$shards SHADERFLOW_REQUIRE_BACKENDS=cuda timeout $limit ./cuda.test -test.run '^TestConformance$' -test.v -test.timeout $((limit - 5))s >"$out/cuda-conformance-$i.log" 2>&1 &
	pids+=($!)
done
for i in 0 1 2 3; do
	SHADERFLOW_CONFORMANCE_SHARD=$i/4 SHADERFLOW_FUSION=1 SHADERFLOW_CUDA_GRAPHS=1 SHADERFLOW_REQUIRE_BACKENDS=cuda timeout $limit ./cuda.test -test.run '^TestConformance$' -test.v -test.timeout $((limit - 5))s >"$out/cuda-graphs-$i.log" 2>&1 &
	pids+=($!)
done
for b in vulkan webgpu; do
	for i in 0 1; do
		SHADERFLOW_CONFORMANCE_SHARD=$i/2 SHADERFLOW_REQUIRE_BACKENDS=$b timeout $limit ./$b.test -test.run '^TestConformance$' -test.short -test.v -test.timeout $((limit - 5))s >"$out/$b-$i.log" 2>&1 &
		pids+=($!)
	done
done
# compute-sanitizer (correctness, so beside the suites): memcheck over the
# kernel tests and over the conformance groups of the block kernels and
# index checks, racecheck over the kernels that share memory.
if command -v compute-sanitizer >/dev/null; then
	(
		timeout $limit compute-sanitizer --tool memcheck --error-exitcode 9 ./cuda.test -test.run 'TestHardwareKernels' -test.short 2>&1
		echo "memcheck (kernel tests) exit $?"
	) >"$out/sanitizer-memcheck.log" &
	(
		SHADERFLOW_FUSION=1 timeout $limit compute-sanitizer --tool memcheck --error-exitcode 9 ./cuda.test -test.run '^TestConformance$/fusion=on/^(reduce|softmax|norm|indexing|scatter|pool|widedtypes)$' -test.short 2>&1
		echo "memcheck (conformance reduce, softmax, norm, indexing, scatter, pool, widedtypes) exit $?"
	) >"$out/sanitizer-memcheck-conformance.log" &
	(
		timeout $limit compute-sanitizer --tool racecheck --error-exitcode 9 ./cuda.test -test.run 'TestHardwareKernels/(MatMul|Reduce|Scatter)|TestHardware(Softmax|Normalize)' -test.short 2>&1
		echo "racecheck exit $?"
	) >"$out/sanitizer-racecheck.log" &
fi
status=()
for p in "${pids[@]}"; do
	wait "$p"
	status+=($?)
done
count "cuda kernel tests" "${status[0]}" "$out/cuda-kernels.log"
cat "$out"/cuda-conformance-*.log >"$out/cuda.log"
count "cuda conformance ($shards shards, exits ${status[*]:1:$shards})" "$(printf '%s\n' "${status[@]:1:$shards}" | sort -n | tail -1)" "$out/cuda.log"
cat "$out"/cuda-graphs-*.log >"$out/cuda-graphs.log"
count "cuda conformance with CUDA graphs on (fusion on, 4 shards, exits ${status[*]:$((shards + 1)):4})" "$(printf '%s\n' "${status[@]:$((shards + 1)):4}" | sort -n | tail -1)" "$out/cuda-graphs.log"
n=$((shards + 5))
for b in vulkan webgpu; do
	cat "$out/$b-0.log" "$out/$b-1.log" >"$out/$b.log"
	count "$b conformance (-short, 2 shards, exits ${status[$n]} ${status[$((n + 1))]})" "$((status[n] | status[n + 1]))" "$out/$b.log"
	n=$((n + 2))
done
wait
if command -v compute-sanitizer >/dev/null; then
	cat "$out"/sanitizer-*.log >"$out/sanitizer.log"
	grep -E '^(memcheck|racecheck).* exit|ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | sed 's/^/- /' >>"$summary"
else
	echo "- compute-sanitizer: not installed" >>"$summary"
fi
grep -h 'was lost\|panic:\|timed out' "$out"/cuda-*.log "$out"/vulkan-*.log "$out"/webgpu-*.log | head -10 | sed 's/^/    /' >>"$summary"

# The generated matrix product's and cuBLAS's speed on 4096^3, alone, and
# both on the models' product shapes (where cuBLAS starts to pay).
timeout 60 ./cuda.test -test.run 'TestHardwareMatMul/(cuBLAS|Kernel)/Speed|TestHardwareMatMulCrossover' -test.v >"$out/matmul-speed.log" 2>&1
echo "- 4096^3 float32 products alone, and cuBLAS against the generated kernel by shape (matmul-speed.log, exit $?):" >>"$summary"
grep -E 'TFLOP/s|cuBLAS:|matmulcrossover' "$out/matmul-speed.log" | sed 's/^ */    /' >>"$summary"

# The CNN's second convolution in each mode and its max pooling, alone:
# which of the CNN's kernels are slow.
timeout 40 ./cuda.test -test.run '^$' -test.bench 'BenchmarkConvFlops|BenchmarkMaxPool' -test.benchtime 20x >"$out/conv-speed.log" 2>&1
echo "- the CNN's convolution by mode and pooling alone (conv-speed.log, exit $?):" >>"$summary"
grep -E '^Benchmark' "$out/conv-speed.log" | sed 's/^/    /' >>"$summary"

# The benchmarks, alone on the GPU, beside PyTorch.
timeout 90 ./gpucheck -backend cuda -out "$out" -torch torch_cuda.py -python "${PYTHON:-python3}" >"$out/bench.log" 2>&1
echo "- gpucheck benchmarks: exit $? (report.md)" >>"$summary"

# Host overhead per kernel launch (Go to cuLaunchKernel, the stream drained
# outside the timer) without and with graphs: BenchmarkHardwareLaunch.
timeout 25 ./cuda.test -test.run '^$' -test.bench 'BenchmarkHardwareLaunch' -test.benchtime 20000x -test.count 3 >"$out/launch.log" 2>&1
echo "- host time per launch (BenchmarkHardwareLaunch, exit $?):" >>"$summary"
grep -E '^BenchmarkHardwareLaunch' "$out/launch.log" | sed 's/^/    /' >>"$summary"

# The unscoped loop (results left to the garbage collector) against the
# scoped one, on CUDA and on Vulkan: BenchmarkAdd, 40 adds of 10M elements
# a run after its warm-up, three runs each.
timeout 60 ./backends.test -test.run '^$' -test.bench 'BenchmarkAdd/(cuda|vulkan)/(unscoped|scoped)$' -test.benchtime 40x -test.count 3 >"$out/unscoped.log" 2>&1
echo "- unscoped against scoped adds (BenchmarkAdd, exit $?):" >>"$summary"
grep -E '^BenchmarkAdd' "$out/unscoped.log" | sed 's/^/    /' >>"$summary"

# One MLP training epoch on Fashion-MNIST against PyTorch CUDA (the demo's
# --bench protocol): first with the kernels of the step not yet compiled
# (NVRTC runs inside the epoch), then with them in the disk cache, with CUDA
# graphs off and on, and with cuBLAS off (every product on the generated
# kernel: compiled, then cached); then one CNN epoch, compiled and cached.
# Each log ends with the profiler's summary (kernel times by CUDA events).
train() { # name, timeout, cache, demo arguments...
	local name=$1 limit=$2 cache=$3
	shift 3
	SHADERFLOW_CUDA_CACHE=$cache SHADERFLOW_PYTHON=${PYTHON:-python3} timeout "$limit" ./demo --backend cuda --epochs 1 --bench --data fashion-mnist "$@" >"$out/train-$name.log" 2>&1
	echo "- $name vs PyTorch CUDA (train-$name.log): exit $?" >>"$summary"
	grep -A1 '^epoch  *shaderflow' "$out/train-$name.log" | sed 's/^/    /' >>"$summary"
}
if [ -d fashion-mnist ]; then
	rm -rf "$here/mlp-cache" "$here/cnn-cache" # kernel caches of these runs alone
	train mlp-compiled 30 "$here/mlp-cache" --train mlp
	train mlp-cached 30 "$here/mlp-cache" --train mlp
	skip graphs || SHADERFLOW_CUDA_GRAPHS=1 train mlp-cached-graphs 30 "$here/mlp-cache" --train mlp
	SHADERFLOW_CUDA_CUBLAS=/none train mlp-nocublas-compiled 30 "$here/mlp-cache" --train mlp
	SHADERFLOW_CUDA_CUBLAS=/none train mlp-nocublas-cached 30 "$here/mlp-cache" --train mlp
	if ! skip cnn; then
		train cnn-compiled 45 "$here/cnn-cache" --train cnn
		train cnn-cached 45 "$here/cnn-cache" --train cnn
	fi
else
	echo "- MLP and CNN training: skipped (build.sh found no Fashion-MNIST)" >>"$summary"
fi
# The demo's character GPT on CUDA for 60 steps (no PyTorch side: its
# reference runs on the CPU): losses, and tokens/s with the step's kernels
# compiled in the run, then from the kernel cache.
if [ -e kjv.txt ] && ! skip gpt; then
	rm -rf "$here/gpt-cache"
	for run in compiled cached; do
		SHADERFLOW_CUDA_CACHE=$here/gpt-cache timeout 60 ./demo --backend cuda --train gpt --steps 60 --data kjv.txt >"$out/train-gpt-$run.log" 2>&1
		echo "- gpt, 60 steps on CUDA, $run (train-gpt-$run.log): exit $?" >>"$summary"
		grep -E '^validation loss' "$out/train-gpt-$run.log" | sed 's/^/    /' >>"$summary"
	done
fi
cache=${SHADERFLOW_CUDA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/shaderflow/cuda}
echo "- CUDA module disk cache ($cache): $(find "$cache" -type f 2>/dev/null | wc -l) files, $(du -sh "$cache" 2>/dev/null | cut -f1)" >>"$summary"
cat "$summary"
# Everything in one file as well, for machines that return few files.
tar czf "$out.tgz" -C "$out" . 2>/dev/null && mv "$out.tgz" "$out/all.tgz"
