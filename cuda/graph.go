//go:build cgo && linux

package cuda

/*
#include "native.h"
*/
import "C"

import (
	"fmt"
	"strings"
)

// SetGraphs turns CUDA graphs on or off for later launches. While on (and
// profiling is off), launches are queued instead of launched; the next
// operation that transfers, waits, frees synchronously, calls cuBLAS or
// turns profiling on first submits the queue: a sequence of launches that
// was submitted before (the same kernels, grid and block sizes: a
// repeated training step between its uploads and its readback) is
// relaunched as one instantiated graph, its changed parameters (new
// buffer addresses, shapes or constants of the same kernels) updated in
// place; any other sequence runs as plain launches. Results are the same
// either way; only the cost of launching differs. A graph call that fails
// turns graphs off for the device (GraphStats.Off says why) and the
// queue runs as plain launches. Errors of queued kernels are returned by
// the operation that submitted them and name the kernel.
//
// Turning graphs on returns an error wrapping ErrNotImplemented when the
// driver lacks the graph entry points; turning them off submits the
// queue.
func (d *Device) SetGraphs(on bool) error {
	if err := d.usable(); err != nil {
		return err
	}
	err := d.drv.check(C.sf_graph_set(d.drv.api, d.ctx, boolInt(on)))
	if err != nil && on {
		return fmt.Errorf("cuda: graphs: %w: %w", err, ErrNotImplemented)
	}
	return d.note(err)
}

// GraphStats returns the device's graph counters.
func (d *Device) GraphStats() GraphStats {
	if d.closed {
		return GraphStats{}
	}
	var s C.sf_graph_stats
	C.sf_graph_stats_get(d.ctx, &s)
	g := GraphStats{
		Segments: uint64(s.segments), Eager: uint64(s.eager), Built: uint64(s.built),
		Replays: uint64(s.replays), NodeUpdates: uint64(s.node_updates), Failures: uint64(s.failures),
	}
	if s.broken != 0 {
		g.Off = d.drv.check(C.sf_status{code: s.broken, call: s.broken_call})
	}
	return g
}

// queuedKernel returns the name of the queued launch whose failure the
// last submission returned, and forgets it; "" when there was none.
func (d *Device) queuedKernel() string {
	if d.ctx == nil || d.ctx.failed_fn == nil {
		return ""
	}
	fn := d.ctx.failed_fn
	d.ctx.failed_fn = nil
	for _, m := range d.modules {
		if m.fn == fn {
			return strings.TrimPrefix(m.entry, "sf_")
		}
	}
	return "unknown"
}

// flush submits the launches queued for a graph without waiting for them.
func (d *Device) flush() error {
	return d.note(d.drv.check(C.sf_cu_flush(d.drv.api, d.ctx)))
}
