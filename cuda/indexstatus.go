//go:build cgo && linux

package cuda

/*
#include "native.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"
)

// maxIndexCalls is how many gather and scatter calls may wait for their
// check at once; the next call first reads the status (keeping any error
// for the next Sync), so tags stay small and the list bounded.
const maxIndexCalls = 4096

// indexStatus is how index kernels report an out-of-range index: two
// 32-bit words of device memory (the first failing launch's tag, then its
// index), and the calls since the host last read them, whose tag is their
// position in calls plus one.
type indexStatus struct {
	buf   *buffer
	calls []indexCall
}

// indexCall is what an index call's error says: the kernel, the data
// view's name, the axis, the data's and Index's shapes.
type indexCall struct {
	kernel, data     string
	axis             int
	dataShape, shape []int
}

// rangeError renders the out-of-range error of call c for index bad, in
// the words gpu's kernels use.
func (c indexCall) rangeError(bad int32) error {
	return fmt.Errorf("cuda: %s: index %d out of range [0,%d) along axis %d (%s shape %v, Index shape %v)",
		c.kernel, bad, c.dataShape[c.axis], c.axis, c.data, c.dataShape, c.shape)
}

// indexTag registers c and returns its tag and the status words' address,
// allocating and zeroing the words at first use.
func (d *Device) indexTag(c indexCall) (tag int64, status uint64, err error) {
	s := &d.index
	if s.buf == nil {
		b, err := d.Alloc(8)
		if err != nil {
			return 0, 0, err
		}
		s.buf = b.(*buffer)
		if err := d.putStatus(make([]byte, 8)); err != nil {
			return 0, 0, err
		}
	}
	if len(s.calls) >= maxIndexCalls {
		if err := d.takeIndexErrors(); err != nil {
			d.deferred = errors.Join(d.deferred, err)
		}
	}
	s.calls = append(s.calls, c)
	return int64(len(s.calls)), uint64(s.buf.ptr), nil
}

// takeIndexErrors waits for queued work, reads the status words when
// calls are waiting for their check and returns the error they report,
// clearing the words so that each error is reported once.
func (d *Device) takeIndexErrors() error {
	s := &d.index
	if len(s.calls) == 0 {
		return nil
	}
	calls := s.calls
	s.calls = nil
	w := make([]byte, 8)
	if err := d.note(d.drv.check(C.sf_cu_read(d.drv.api, d.ctx, unsafe.Pointer(&w[0]), s.buf.ptr, 8))); err != nil {
		return err
	}
	tag := binary.LittleEndian.Uint32(w)
	if tag == 0 {
		return nil
	}
	err := fmt.Errorf("cuda: an index kernel reported unknown tag %d", tag)
	if int(tag) <= len(calls) {
		err = calls[tag-1].rangeError(int32(binary.LittleEndian.Uint32(w[4:])))
	}
	return errors.Join(err, d.putStatus(make([]byte, 8)))
}

// putStatus writes w to the status words.
func (d *Device) putStatus(w []byte) error {
	return d.note(d.drv.check(C.sf_cu_write(d.drv.api, d.ctx, d.index.buf.ptr, unsafe.Pointer(&w[0]), C.size_t(len(w)))))
}
