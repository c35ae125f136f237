// Package gputest holds test helpers shared by the portable-GPU backends:
// opening a backend's adapter (skipping cleanly when there is none, unless
// the environment requires the backend), moving typed data in and out of
// device buffers, and kernel tests of every kernel kind against scalar
// references built from package device's definitions.
package gputest
