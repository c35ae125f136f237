//go:build cgo && !linux

package webgpu

// quietDriverLogs does nothing where no Wayland client library is probed.
func quietDriverLogs() {}
