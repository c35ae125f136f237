//go:build cgo && !linux

package webgpu

// systemMemory is unknown on this system.
func systemMemory() int64 { return 0 }
