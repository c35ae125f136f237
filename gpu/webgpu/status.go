//go:build cgo

package webgpu

import (
	"encoding/binary"
	"fmt"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/shaderflow/shaderflow/gpu"
)

// statusSlots is how many status-reporting launches (gather, scatter) can
// run between two checks; one more forces a check.
const statusSlots = 256

// statusState is the status buffer that gather and scatter kernels report
// out-of-range indices in (see package gpu) and the launches using it since
// the last check, by slot.
type statusState struct {
	buf  *buffer
	uses []gpu.StatusUse
}

func (s *statusState) init(d *Device) error {
	wb, err := d.createBuffer("status", statusSlots*gpu.StatusWords*4, storageUsage)
	if err != nil {
		return err
	}
	d.nextID++
	s.buf = &buffer{d: d, b: wb, size: statusSlots * gpu.StatusWords * 4, id: d.nextID}
	return nil
}

// slot returns a free slot, checking (and so emptying) the buffer first
// when every slot is taken; the caller appends its use once recorded.
func (s *statusState) slot(d *Device) (int, error) {
	if len(s.uses) == statusSlots {
		if err := d.readback(nil, 0, nil, true); err != nil {
			return 0, err
		}
	}
	return len(s.uses), nil
}

// bytes returns the size of the slots in use.
func (s *statusState) bytes() int64 { return int64(len(s.uses)) * gpu.StatusWords * 4 }

// copyAndClear records the copy of the slots in use to dst at off, then
// zeroes them.
func (s *statusState) copyAndClear(enc *wgpu.CommandEncoder, dst *wgpu.Buffer, off int64) error {
	n := uint64(s.bytes())
	if err := enc.CopyBufferToBuffer(s.buf.b, 0, dst, uint64(off), n); err != nil {
		return fmt.Errorf("webgpu: status readback: %v", err)
	}
	if err := enc.ClearBuffer(s.buf.b, 0, n); err != nil {
		return fmt.Errorf("webgpu: status clear: %v", err)
	}
	return nil
}

// check turns the first flagged slot of the read-back words into its
// launch's error and forgets the uses.
func (s *statusState) check(words []byte) error {
	var err error
	for i, u := range s.uses {
		w := words[i*gpu.StatusWords*4:]
		if binary.LittleEndian.Uint32(w) != 0 && err == nil {
			err = u.Describe(int32(binary.LittleEndian.Uint32(w[4:])))
		}
	}
	s.uses = s.uses[:0]
	return err
}

func (s *statusState) release() {
	if s.buf != nil && s.buf.b != nil {
		s.buf.b.Destroy()
		s.buf.b.Release()
		s.buf.b = nil
	}
}
