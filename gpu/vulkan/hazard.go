//go:build cgo

package vulkan

/*
#include "native.h"
*/
import "C"

// hazard reports whether the next command of the recording batch, which
// reads and writes the given buffers, needs a barrier first: when it reads a
// buffer written since the last barrier, or writes one read or written since
// then. It then marks the accesses (in the new epoch when a barrier is
// needed). Independent kernels thus run without barriers between them. A
// buffer may appear in both lists.
func (d *Device) hazard(reads, writes []*Buffer) bool {
	need := false
	for _, b := range reads {
		need = need || b.writeEpoch == d.epoch
	}
	for _, b := range writes {
		need = need || b.writeEpoch == d.epoch || b.readEpoch == d.epoch
	}
	if need {
		d.epoch++
		d.stats.Barriers++
	}
	for _, b := range reads {
		b.readEpoch = d.epoch
	}
	for _, b := range writes {
		b.writeEpoch = d.epoch
	}
	return need
}

// cflag converts a bool to a C int.
func cflag(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
