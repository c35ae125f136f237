// Package fakecuda builds the CUDA backend's test double for tests: a fake
// libcuda and a fake NVRTC (cuda/testdata) that compile the generated CUDA C
// for the host with g++ and run each launch's grid on the CPU, and a fake
// cuBLAS whose SGEMM runs on the host. It is a test double: nothing it runs
// says anything about a GPU's speed or a real driver's behaviour
// (docs/cuda.md, "Through the test double").
package fakecuda
