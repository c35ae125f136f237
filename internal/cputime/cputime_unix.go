//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the user plus system CPU time the process has used, and
// false when the system does not report it.
func Process() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
