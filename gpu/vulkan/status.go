//go:build cgo

package vulkan

import (
	"encoding/binary"
	"errors"

	"github.com/shaderflow/shaderflow/gpu"
)

// statusSlots is the number of gather/scatter launches that can report an
// out-of-range index between two checks of the status buffer; when a launch
// needs slot statusSlots, the device first drains and checks.
const statusSlots = 1024

// statusBytes is the size of the status buffer.
const statusBytes = statusSlots * gpu.StatusWords * 4

// statusTarget returns the status slot the next gather or scatter launch
// reports into, draining and checking the buffer when every slot is taken
// (the errors found are kept for the next Sync or Read).
func (d *Device) statusTarget() (gpu.StatusTarget, error) {
	if len(d.statusUses) >= statusSlots {
		if err := d.drain(); err != nil {
			return gpu.StatusTarget{}, err
		}
		if err := d.takeStatus(); err != nil {
			d.deferred = errors.Join(d.deferred, err)
		}
	}
	return gpu.StatusTarget{Buf: d.statusBuf, Slot: len(d.statusUses)}, nil
}

// takeStatus reads the slots used since the last check, clears them and
// returns the errors they report. It must be called with no work pending.
func (d *Device) takeStatus() error {
	n := len(d.statusUses)
	if n == 0 {
		return nil
	}
	uses := d.statusUses
	d.statusUses = d.statusUses[:0]
	words := make([]byte, n*gpu.StatusWords*4)
	if err := d.readLocked(d.statusBuf, 0, words); err != nil {
		return err
	}
	var errs []error
	for i, u := range uses {
		w := words[i*gpu.StatusWords*4:]
		if binary.LittleEndian.Uint32(w) != 0 {
			errs = append(errs, u.Describe(int32(binary.LittleEndian.Uint32(w[4:]))))
		}
	}
	if len(errs) > 0 {
		clear(words)
		if err := d.writeLocked(d.statusBuf, 0, words); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
