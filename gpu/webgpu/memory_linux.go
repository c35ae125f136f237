//go:build cgo && linux

package webgpu

import "golang.org/x/sys/unix"

// systemMemory returns the machine's memory: what a software adapter uses.
func systemMemory() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
