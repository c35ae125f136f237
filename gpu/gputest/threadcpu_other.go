//go:build !linux

package gputest

import "time"

// ThreadCPU returns 0 where no per-thread CPU clock is wired: RecordLoop
// then reports wall time only.
func ThreadCPU() time.Duration { return 0 }
