//go:build cgo

package vulkan

/*
#include "native.h"
*/
import "C"

// hazard prepares the recording batch for a command that reads and writes
// the given buffers: when the command reads a buffer written since the last
// barrier, or writes one read or written since then, it records a barrier
// (ordering every earlier command before every later one). Then it marks
// the accesses. Independent kernels thus run without barriers between them.
// A buffer may appear in both lists.
func (d *Device) hazard(reads, writes []*Buffer) {
	need := false
	for _, b := range reads {
		need = need || b.writeEpoch == d.epoch
	}
	for _, b := range writes {
		need = need || b.writeEpoch == d.epoch || b.readEpoch == d.epoch
	}
	if need {
		C.sf_barrier(d.c, d.rec.ccb())
		d.epoch++
		d.stats.Barriers++
	}
	for _, b := range reads {
		b.readEpoch = d.epoch
	}
	for _, b := range writes {
		b.writeEpoch = d.epoch
	}
}
