// Package torchref holds the PyTorch definitions of Shaderflow's reference
// models that more than one command compares against: the scripts of
// cmd/demo and cmd/bench import them from a file written beside them, so
// each architecture is written once in Python as it is once in Go.
package torchref
