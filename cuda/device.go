//go:build cgo && linux

package cuda

/*
#include <stdlib.h>
#include "native.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// defaultStagingBytes is the size of a device's pinned staging buffer: host
// transfers larger than this go in chunks.
const defaultStagingBytes = 8 << 20

// The backend's devices implement the contract.
var _ device.Device = (*Device)(nil)

// Device is one opened CUDA device. It implements device.Device.
type Device struct {
	drv      *driver
	nv       *nvrtc
	ctx      *C.sf_ctx // C memory: passed to every wrapper
	info     device.Info
	cc       int // compute capability, e.g. 90 for sm_90
	live     map[*buffer]struct{}
	modules  map[moduleKey]*module
	programs map[string]*module     // generated kernels' modules by signature (ewSignature)
	plans    map[string]*kernelPlan // generated kernels' plans by key (runPlan)
	planKey  []byte                 // scratch for the key of the kernel being run
	disk     *diskCache             // compiled modules on disk; nil when off
	cacheErr error                  // the last failure to store a module on disk (the module still loaded)
	deferred error                  // an error of Free, returned by the next Sync
	index    indexStatus            // where gather and scatter report out-of-range indices
	lost     error                  // the sticky error after which nothing runs
	tf32     bool                   // cuBLAS products may use TF32 tensor cores (SetTF32)
	blasUse  blasPolicy             // which products go to cuBLAS
	direct   bool                   // every convolution on its direct kernel, none as products (tests; convGEMM)
	closed   bool
}

// open opens device ordinal of drv with a staging buffer of staging bytes.
func open(drv *driver, nv *nvrtc, ordinal int, staging int) (*Device, error) {
	if ordinal < 0 || ordinal >= drv.count {
		return nil, fmt.Errorf("cuda: no device %d (there are %d): %w", ordinal, drv.count, device.ErrUnavailable)
	}
	info, cc, err := drv.adapterInfo(ordinal)
	if err != nil {
		return nil, err
	}
	ctx := (*C.sf_ctx)(C.calloc(1, C.sizeof_sf_ctx))
	if ctx == nil {
		return nil, errors.New("cuda: out of host memory")
	}
	if err := drv.check(C.sf_cu_open(drv.api, C.int(ordinal), C.size_t(staging), ctx)); err != nil {
		C.free(unsafe.Pointer(ctx))
		return nil, fmt.Errorf("cuda: opening device %d: %w", ordinal, err)
	}
	d := &Device{
		drv: drv, nv: nv, ctx: ctx, info: info, cc: cc,
		live:     map[*buffer]struct{}{},
		modules:  map[moduleKey]*module{},
		programs: map[string]*module{},
		plans:    map[string]*kernelPlan{},
		disk:     openDiskCache(os.Getenv),
	}
	d.tf32 = os.Getenv(EnvTF32) == "1"
	if os.Getenv(EnvGraphs) == "1" && drv.api.cuGraphCreate != nil {
		if err := d.SetGraphs(true); err != nil {
			_ = d.Close()
			return nil, err
		}
	}
	return d, nil
}

// Info describes the device.
func (d *Device) Info() device.Info { return d.info }

// usable returns the error that stops any operation: a closed or lost
// device. Every operation starts with it, so it also starts a new epoch:
// the launches of one epoch are one kernel call (see KernelCalls).
func (d *Device) usable() error {
	if d.closed {
		return fmt.Errorf("cuda: %w", device.ErrClosed)
	}
	if d.lost != nil {
		return fmt.Errorf("cuda: the device was lost earlier: %w", d.lost)
	}
	d.ctx.epoch++
	return nil
}

// note records err as the sticky error when it means the device is lost,
// and returns it.
func (d *Device) note(err error) error {
	if err != nil {
		if k := d.queuedKernel(); k != "" {
			err = fmt.Errorf("cuda: kernel %s (queued for a graph): %w", k, err)
		}
	}
	if err != nil && d.lost == nil && errors.Is(err, device.ErrDeviceLost) {
		d.lost = err
	}
	return err
}

// Sync waits for the stream and returns the first deferred error.
func (d *Device) Sync() error {
	if err := d.usable(); err != nil {
		return err
	}
	err := d.note(d.drv.check(C.sf_cu_sync(d.drv.api, d.ctx)))
	if err == nil {
		err = d.takeIndexErrors()
	}
	err, d.deferred = errors.Join(d.deferred, err), nil
	return err
}

// Close waits for pending work, frees every buffer and module, and releases
// the stream, the staging buffer and the primary context.
func (d *Device) Close() error {
	if d.closed {
		return nil
	}
	var errs []error
	if d.lost == nil {
		errs = append(errs, d.note(d.drv.check(C.sf_cu_flush(d.drv.api, d.ctx))))
	}
	errs = append(errs, d.closeBLAS()) // before the context goes
	if d.lost == nil {
		for b := range d.live {
			errs = append(errs, d.release(b))
		}
		for _, m := range d.modules {
			errs = append(errs, d.drv.check(C.sf_cu_module_unload(d.drv.api, d.ctx, m.mod)))
		}
	}
	errs = append(errs, d.drv.check(C.sf_cu_close(d.drv.api, d.ctx)))
	C.free(unsafe.Pointer(d.ctx))
	d.ctx, d.closed, d.live, d.modules, d.programs, d.plans = nil, true, nil, nil, nil, nil
	return errors.Join(errs...)
}
