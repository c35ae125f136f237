//go:build cgo

package webgpu

/*
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// The few wgpu-native 0.17 functions this package calls itself rather than
// through the wgpu wrapper (whose MapAsync hands C a Go-heap cgo.Handle that
// the garbage collector can invalidate before the callback runs). The
// static library comes with the wgpu package; these are hand-written
// declarations of its C API (webgpu.h, wgpu.h): handles are opaque pointers
// and enums int-sized.
typedef struct sfOpaque *sfHandle;
typedef void (*sfErrorCallback)(int type, char const *message, void *userdata);
typedef void (*sfMapCallback)(int status, void *userdata);

void wgpuBufferMapAsync(sfHandle buffer, uint32_t mode, size_t offset, size_t size, sfMapCallback callback, void *userdata);
bool wgpuDevicePoll(sfHandle device, bool wait, void const *wrappedSubmissionIndex);
void const *wgpuBufferGetConstMappedRange(sfHandle buffer, size_t offset, size_t size);
void wgpuBufferUnmap(sfHandle buffer);
uint64_t wgpuBufferGetSize(sfHandle buffer);
void wgpuDevicePushErrorScope(sfHandle device, int filter);
void wgpuDevicePopErrorScope(sfHandle device, sfErrorCallback callback, void *userdata);
void wgpuDeviceSetUncapturedErrorCallback(sfHandle device, sfErrorCallback callback, void *userdata);

enum { sfFilterValidation = 0, sfFilterOutOfMemory = 1, sfMapRead = 1 };

// sfError records the first error reported to it. It lives in C memory.
typedef struct {
	int type;
	char message[1024];
} sfError;

static void sf_error_cb(int type, char const *message, void *userdata) {
	sfError *e = (sfError *)userdata;
	if (type == 0 || e->type != 0) {
		return;
	}
	e->type = type;
	if (message != NULL) {
		strncpy(e->message, message, sizeof e->message - 1);
		e->message[sizeof e->message - 1] = 0;
	}
}

static sfError *sf_error_new(void) { return (sfError *)calloc(1, sizeof(sfError)); }

static void sf_set_uncaptured(sfHandle device, sfError *e) {
	wgpuDeviceSetUncapturedErrorCallback(device, sf_error_cb, e);
}

static void sf_push_oom(sfHandle device) { wgpuDevicePushErrorScope(device, sfFilterOutOfMemory); }

static void sf_pop(sfHandle device, sfError *e) { wgpuDevicePopErrorScope(device, sf_error_cb, e); }

// sfMap is the state of one mapping, in C memory: the callback may only run
// inside wgpuDevicePoll, which sf_read calls.
typedef struct {
	volatile int done;
	int status;
} sfMap;

static void sf_map_cb(int status, void *userdata) {
	sfMap *m = (sfMap *)userdata;
	m->status = status;
	m->done = 1;
}

// sf_wait_idle polls the device without blocking until every submission
// has finished, sleeping between polls. It never calls the blocking poll:
// wgpu-core 0.17 waits at most 5 s there and then treats the submission as
// finished, although lavapipe, which compiles shaders on first dispatch, can
// take longer; wgpu would then recycle command buffers and free memory that
// is still in use. The non-blocking poll reads the real fence value. done,
// when not NULL, ends the wait early once set (a map callback). It returns
// 0, or -1 after limit_ms.
static int sf_wait(sfHandle device, volatile int *done, long limit_ms) {
	struct timespec start, now, nap = {0, 20000};
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (int i = 0;; i++) {
		bool empty = wgpuDevicePoll(device, false, NULL);
		if (done != NULL ? *done : empty) {
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 > limit_ms) {
			return -1;
		}
		if (i > 64) {
			nanosleep(&nap, NULL);
			if (nap.tv_nsec < 1000000) {
				nap.tv_nsec *= 2;
			}
		}
	}
}

// sf_read maps bytes [offset, offset+size) of a MAP_READ buffer once the
// queue is done with it, copies them to dst and unmaps the buffer. It
// returns 0, the map status (> 0), or -1 when the callback never ran within
// limit_ms (the state is then leaked rather than freed under a pending
// callback).
static int sf_read(sfHandle device, sfHandle buffer, size_t offset, size_t size, void *dst, sfError *e, long limit_ms) {
	sfMap *m = (sfMap *)calloc(1, sizeof(sfMap));
	if (m == NULL) {
		return -2;
	}
	wgpuDevicePushErrorScope(device, sfFilterValidation);
	wgpuBufferMapAsync(buffer, sfMapRead, offset, size, sf_map_cb, m);
	wgpuDevicePopErrorScope(device, sf_error_cb, e);
	if (sf_wait(device, &m->done, limit_ms) != 0) {
		return -1;
	}
	int status = m->status;
	free(m);
	if (status != 0) {
		return status;
	}
	void const *p = wgpuBufferGetConstMappedRange(buffer, offset, size);
	if (p != NULL) {
		memcpy(dst, p, size);
	}
	wgpuBufferUnmap(buffer);
	return p == NULL ? -3 : 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// cError is an error record in C memory.
type cError struct{ p *C.sfError }

func newCError() cError { return cError{C.sf_error_new()} }

// take returns the recorded error, if any, and clears the record.
func (e cError) take() error {
	if e.p == nil || e.p._type == 0 {
		return nil
	}
	msg := C.GoString(&e.p.message[0])
	typ := int(e.p._type)
	e.p._type = 0
	e.p.message[0] = 0
	return &wgpuError{typ: typ, msg: msg}
}

func (e cError) free() {
	if e.p != nil {
		C.free(unsafe.Pointer(e.p))
	}
}

// wgpuError is an error reported by wgpu-native.
type wgpuError struct {
	typ int
	msg string
}

// The error types of webgpu.h.
const (
	errValidation  = 1
	errOutOfMemory = 2
	errDeviceLost  = 5
)

// Error says what kind of error wgpu reported and its message.
func (e *wgpuError) Error() string {
	kind := map[int]string{errValidation: "validation error", errOutOfMemory: "out of memory", 3: "internal error", 4: "unknown error", errDeviceLost: "device lost"}[e.typ]
	return fmt.Sprintf("webgpu: %s: %s", kind, e.msg)
}

// The raw C handles inside the wrapper's objects. The wrapper keeps them in
// unexported fields: wgpu.Device is {ref} and wgpu.Buffer is {deviceRef,
// ref} in v0.17.1; checkLayout verifies this when a device opens.
func rawDevice(d *wgpu.Device) C.sfHandle { return *(*C.sfHandle)(unsafe.Pointer(d)) }

func rawBuffer(b *wgpu.Buffer) C.sfHandle {
	return *(*C.sfHandle)(unsafe.Add(unsafe.Pointer(b), unsafe.Sizeof(uintptr(0))))
}

func rawBufferDevice(b *wgpu.Buffer) C.sfHandle { return *(*C.sfHandle)(unsafe.Pointer(b)) }

// checkLayout verifies the wrapper's object layout on a live buffer of the
// given size created on d.
func checkLayout(d *wgpu.Device, b *wgpu.Buffer, size uint64) error {
	if rawBufferDevice(b) != rawDevice(d) || uint64(C.wgpuBufferGetSize(rawBuffer(b))) != size {
		return errors.New("webgpu: the go-webgpu wrapper's object layout is not the one this package was written for (v0.17.1)")
	}
	return nil
}

// setUncaptured routes errors raised outside any error scope to e instead
// of wgpu-native's default handler, which aborts the process.
func setUncaptured(d *wgpu.Device, e cError) { C.sf_set_uncaptured(rawDevice(d), e.p) }

// withOOMScope runs f inside an out-of-memory error scope and returns the
// scope's error (the wrapper's own scopes catch validation errors only).
func withOOMScope(d *wgpu.Device, e cError, f func()) error {
	C.sf_push_oom(rawDevice(d))
	f()
	C.sf_pop(rawDevice(d), e.p)
	return e.take()
}

// readMapped copies bytes [off, off+len(dst)) of the MAP_READ buffer b into
// dst, waiting for all submitted work first.
func readMapped(d *wgpu.Device, e cError, b *wgpu.Buffer, off int64, dst []byte) error {
	if len(dst) == 0 {
		return nil
	}
	st := C.sf_read(rawDevice(d), rawBuffer(b), C.size_t(off), C.size_t(len(dst)), unsafe.Pointer(&dst[0]), e.p, waitLimitMillis)
	if err := e.take(); err != nil {
		return err
	}
	if st == -1 {
		return errTimeout
	}
	if st != 0 {
		return fmt.Errorf("webgpu: mapping a readback buffer failed (status %d)", int(st))
	}
	return nil
}

// waitLimitMillis bounds a wait for the queue: 10 minutes.
const waitLimitMillis = 10 * 60 * 1000

var errTimeout = fmt.Errorf("webgpu: the queue did not finish within %d s: %w", waitLimitMillis/1000, device.ErrDeviceLost)

// waitIdle waits until every submission has finished (see sf_wait).
func waitIdle(d *wgpu.Device) error {
	if C.sf_wait(rawDevice(d), nil, waitLimitMillis) != 0 {
		return errTimeout
	}
	return nil
}
