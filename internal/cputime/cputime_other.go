//go:build !unix

package cputime

import "time"

// Process returns false: only Unix systems report the process's CPU time
// here.
func Process() (time.Duration, bool) { return 0, false }
