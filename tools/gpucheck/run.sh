#!/bin/bash
# Runs Shaderflow's GPU checks on a machine with an NVIDIA GPU, from the
# folder build.sh made (no Go needed): the CUDA kernel tests and conformance
# suite, the Vulkan and WebGPU conformance suites on the same GPU, the CUDA
# kernel tests under compute-sanitizer (memcheck and racecheck), and the
# benchmarks beside PyTorch CUDA. Writes summary.md and the logs and
# reports into OUTDIR. Each step has a time limit so that the whole stays
# within about six minutes. Usage: ./run.sh OUTDIR
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
timeout 100 ./gpucheck -backend cuda -out "$out" -torch torch_cuda.py -python "${PYTHON:-python3}" >"$out/bench.log" 2>&1
echo "- gpucheck benchmarks: exit $? (report.md)" >>"$summary"
cat "$summary"
