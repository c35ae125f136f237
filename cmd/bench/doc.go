// Command bench measures Shaderflow's kernels against this machine's limits
// and, where /usr/bin/python3 imports torch, against PyTorch on the same
// machine in the same run.
//
//	go run ./cmd/bench [-backend cpu] [-out DIR] [-baseline FILE [-tolerance 0.1]]
//	                   [-quick] [-no-torch] [-run REGEXP]
//
// It first measures the machine's ceilings itself: the float32 FMA peak on
// every core and on one, and STREAM-triad bandwidth from DRAM on every core
// and on one (the best of several rounds). It then times, through the
// ordinary tensor API (each iteration computes its result inside a device
// scope and realizes it, so memory comes from the pool; warm-up excluded; the
// device synchronized before each clock stop), matrix products of
// 1024³, 512³ and 64×784×128; add, mul and relu on 10M floats; tanh,
// sigmoid, gelu and exp on 10M; a chain of four elementwise ops fused and
// unfused; sums, softmax, log-softmax and layer norm over the rows of a
// 10000×1000 matrix; the two convolutions of the reference CNN; a
// conversion of 10M floats to float16; and inference of torchvision's
// ResNet-18 at batch 1 and 32 (224×224), exported to ONNX by PyTorch at the
// start of the run and run through onnx.Load and Model.Run, beside PyTorch
// running the same architecture (left out, saying why, without python3,
// torch, torchvision and onnx); and inference of cmd/demo's character GPT
// (train.CharGPTConfig over the King James Bible's 73 characters, random
// weights): a forward pass without gradients over full 128-token contexts at
// batch 1 and 32, and the generation of 128 tokens as train.Generate draws
// them (no cache of keys and values: each token re-runs the window), beside
// PyTorch's twin of the model (internal/torchref), with tokens/s for both.
//
// Each result shows its median, GB/s or GFLOP/s, the fraction of the
// machine's limit it reaches and, with PyTorch, PyTorch's median for the same
// operation (the allocating form; the out= form is in the notes) and the
// speed ratio. The report names the device, its instruction set and the
// machine load, and is printed as Markdown; -out writes report.md,
// report.json and report.png. -baseline compares the run with a stored
// report.json and exits with status 1 when a benchmark is more than
// -tolerance slower (or missing). -quick runs fewer iterations and shorter
// limit measurements; -no-torch skips PyTorch; -run keeps the benchmarks
// whose names match. The limits are the host CPU's: for a GPU backend they
// are omitted. On a shared machine timings vary with its load, which the
// report records; compare ratios measured in one run.
//
// PyTorch runs from an embedded script written to a temporary file, with
// OPENBLAS_CORETYPE unset, two threads for every operation except the
// small matrix product, ResNet-18 and the GPT (timed on one and two threads,
// the faster kept), warm-up excluded, medians compared. For ResNet-18 and
// the GPT the script keeps freed memory in glibc's heap (mallopt), as
// Shaderflow's pool does; with glibc's defaults PyTorch's forward passes
// spent most of their time in page faults. The script stays running and times
// each benchmark right after the Go side has, so both see about the same
// machine load. Each result's note also gives the ceiling measured right
// after it (STREAM or FMA peak, over a short interval) and the fraction of
// it reached: what the kernel made of what the machine offered then. The
// report's limits are the best of every measurement in the run.
package main
