// Package data loads training data at the byte and float level: the IDX file
// format of MNIST and Fashion-MNIST (plain or gzip-compressed), in-memory
// datasets of normalized float32 samples with int32 labels, and a DataLoader
// that yields shuffled mini-batches into reused buffers. The next batch is
// gathered in the background by the helper goroutines that the CPU backend's
// kernels share (internal/workpool), so that it overlaps the consumer's
// serial work between kernels.
//
// The package has no dependency on the tensor front end: batches are plain
// []float32 and []int32 slices with a shape, ready to be copied into tensors.
//
// Malformed or truncated files return errors (wrapping ErrMalformed); they
// never panic and never make the reader allocate more than the input holds.
// Programmer errors, such as a non-positive batch size, panic with a message
// that names the function and the values involved.
//
// Datasets are found without surprise downloads: LoadFashionMNIST looks in the
// directory it is given, else in $SHADERFLOW_DATA, else in
// /usr/share/datasets/fashion-mnist, where Debian's dataset-fashion-mnist
// package installs the files.
package data
