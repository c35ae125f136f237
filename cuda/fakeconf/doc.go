// Package fakeconf runs the cross-backend conformance suite on the CUDA
// backend through its test double (cuda/internal/fakecuda): the backend's
// real Go and cgo code over a fake driver and NVRTC that compile every
// generated kernel for the host and run it on the CPU. It has tests only.
package fakeconf
