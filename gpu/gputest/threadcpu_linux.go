package gputest

import (
	"syscall"
	"time"
	"unsafe"
)

// ThreadCPU returns the CPU time the calling OS thread has used, which
// unlike wall time does not grow when other threads or processes share the
// cores.
func ThreadCPU() time.Duration {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3 /* CLOCK_THREAD_CPUTIME_ID */, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}
