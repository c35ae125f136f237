#!/bin/bash
# Runs Shaderflow's GPU checks on a machine with an NVIDIA GPU, from the
# folder build.sh made (no Go needed): the CUDA kernel tests and conformance
# suite, the Vulkan and WebGPU conformance suites on the same GPU, the CUDA
# kernel tests under compute-sanitizer (memcheck and racecheck), the
# benchmarks beside PyTorch CUDA (a training step with CUDA graphs off and
# on among them), the host time per kernel launch with and without graphs,
# and an MLP training epoch against PyTorch CUDA. Writes summary.md and the logs and reports into
# OUTDIR. Each step has a time limit so that the whole stays within about
# ten minutes. Usage: ./run.sh OUTDIR
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

# The three backends' suites run side by side (correctness only).
SHADERFLOW_REQUIRE_BACKENDS=cuda timeout 150 ./cuda.test -test.run 'TestHardware|TestConformance' -test.v -test.timeout 145s >"$out/cuda.log" 2>&1 &
cuda=$!
(
	SHADERFLOW_REQUIRE_BACKENDS=vulkan timeout 140 ./vulkan.test -test.run 'TestConformance' -test.short -test.v -test.timeout 135s 2>&1
	echo "vulkan exit $?"
) >"$out/vulkan.log" &
vk=$!
(
	SHADERFLOW_REQUIRE_BACKENDS=webgpu timeout 140 ./webgpu.test -test.run 'TestConformance' -test.short -test.v -test.timeout 135s 2>&1
	echo "webgpu exit $?"
) >"$out/webgpu.log" &
wg=$!
wait $cuda
count "cuda kernels and conformance" $? "$out/cuda.log"
wait $vk
count "vulkan conformance (-short)" "$(tail -1 "$out/vulkan.log")" "$out/vulkan.log"
wait $wg
count "webgpu conformance (-short)" "$(tail -1 "$out/webgpu.log")" "$out/webgpu.log"

# compute-sanitizer over the CUDA kernel tests.
if command -v compute-sanitizer >/dev/null; then
	{
		timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 ./cuda.test -test.run 'TestHardwareKernels' -test.short 2>&1
		echo "memcheck exit $?"
		timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 ./cuda.test -test.run 'TestHardwareKernels/(MatMul|Reduce|Scatter)' -test.short 2>&1
		echo "racecheck exit $?"
	} >"$out/sanitizer.log"
	grep -E '^(memcheck|racecheck) exit|ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | sed 's/^/- /' >>"$summary"
else
	echo "- compute-sanitizer: not installed" >>"$summary"
fi

# The benchmarks, alone on the GPU, beside PyTorch.
timeout 120 ./gpucheck -backend cuda -out "$out" -torch torch_cuda.py -python "${PYTHON:-python3}" >"$out/bench.log" 2>&1
echo "- gpucheck benchmarks: exit $? (report.md)" >>"$summary"

# Host overhead per kernel launch (Go to cuLaunchKernel, the stream drained
# outside the timer) without and with graphs: BenchmarkHardwareLaunch.
timeout 40 ./cuda.test -test.run '^$' -test.bench 'BenchmarkHardwareLaunch' -test.benchtime 20000x -test.count 3 >"$out/launch.log" 2>&1
echo "- host time per launch (BenchmarkHardwareLaunch, exit $?):" >>"$summary"
grep -E '^BenchmarkHardwareLaunch' "$out/launch.log" | sed 's/^/    /' >>"$summary"

# One MLP training epoch on Fashion-MNIST against PyTorch CUDA (the demo's
# --bench protocol); graphs on/off for a training step is gpucheck's
# "mlp train step 64" rows above.
if [ -d fashion-mnist ]; then
	SHADERFLOW_PYTHON=${PYTHON:-python3} timeout 120 ./demo --backend cuda --train mlp --epochs 1 --bench --data fashion-mnist >"$out/train-mlp.log" 2>&1
	echo "- MLP epoch vs PyTorch CUDA (train-mlp.log): exit $?" >>"$summary"
	tail -8 "$out/train-mlp.log" | sed 's/^/    /' >>"$summary"
else
	echo "- MLP training: skipped (build.sh found no Fashion-MNIST)" >>"$summary"
fi
cat "$summary"
