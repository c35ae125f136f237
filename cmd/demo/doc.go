// Command demo opens the best available Shaderflow device (or the one named
// with --backend), shows what it is and why it was chosen, runs a few
// operations and checks their results, measures matmul GFLOP/s and
// elementwise GB/s, and prints the profiler summary and pool statistics.
// With --train it trains a reference model on Fashion-MNIST instead, or with
// --train gpt a character-level GPT on the King James Bible (with --bench,
// side by side with PyTorch on the same protocol).
//
//	go run ./cmd/demo
//	go run ./cmd/demo --backend vulkan
//	go run ./cmd/demo --backend cpu --train mlp --epochs 5
//	go run ./cmd/demo --train cnn --bench
//	go run ./cmd/demo --train gpt --steps 500 --bench
package main
