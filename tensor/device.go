package tensor

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/shaderflow/shaderflow/tensor/pool"
	"github.com/shaderflow/shaderflow/tensor/profiler"
)

// Device is an opened backend device with its memory pool, profiler, random
// state and lazy graph. All operations on one device are serialized; tensors
// of different devices never mix.
type Device struct {
	mu         sync.Mutex
	raw        device.Device
	info       device.Info
	pool       *pool.Pool
	prof       *profiler.Profiler
	kt         kernelTiming     // device kernel times for the profiler
	gen        uint64           // the current generation of launches (settle.go), from 1
	failedGens map[uint64]error // the generations whose wait returned an error
	why        string
	seed       uint64
	scopes     []*scopeFrame
	stats      FusionStats
	report     []KernelReport
	reporting  bool
	pbFree     []*progBuilder           // recycled program builders
	ewk        device.ElementwiseKernel // reused so launches do not allocate
	out1       [1]device.View
	closed     bool
	maxBufs    int
	noGrad     atomic.Int64 // depth of NoGrad calls running on this device
	rc         reclaimer    // returns unreachable unscoped tensors' memory early
}

func newDevice(raw device.Device) *Device {
	info := raw.Info()
	d := &Device{raw: raw, info: info, pool: pool.New(raw), prof: profiler.New(), seed: 0x5eed, gen: 1}
	d.prof.SetEnabled(false)
	d.maxBufs = info.Limits.MaxBuffersPerKernel
	if d.maxBufs <= 0 || d.maxBufs > 64 {
		d.maxBufs = 64
	}
	if d.maxBufs < 4 {
		d.maxBufs = 4
	}
	return d
}

// Info describes the device.
func (d *Device) Info() device.Info { return d.info }

// Name returns "backend:index".
func (d *Device) Name() string { return fmt.Sprintf("%s:%d", d.info.Backend, d.info.Index) }

// Why says how the device was chosen.
func (d *Device) Why() string { return d.why }

// String describes the device on one line.
func (d *Device) String() string { return d.info.String() }

// Raw returns the backend device beneath the front end, for benchmarks and
// backend tests.
func (d *Device) Raw() device.Device { return d.raw }

// Profiler returns the device's profiler (disabled until SetEnabled(true)).
func (d *Device) Profiler() *profiler.Profiler { return d.prof }

// PoolStats returns the memory pool's statistics.
func (d *Device) PoolStats() pool.Stats { return d.pool.Stats() }

// EmptyCache returns the pool's cached blocks to the device.
func (d *Device) EmptyCache() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pool.EmptyCache()
}

// Seed resets the device's default random generator: the same seed gives the
// same sequence of Rand/Randn/Dropout tensors on every backend.
func (d *Device) Seed(s uint64) {
	d.mu.Lock()
	d.seed = s
	d.mu.Unlock()
}

// nextSeed returns a fresh stream seed. Callers hold d.mu.
func (d *Device) nextSeed() uint64 {
	d.seed++
	return d.seed*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
}

// Sync waits for all work on the device and returns any deferred error.
func (d *Device) Sync() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return device.ErrClosed
	}
	return d.settle()
}

// Close releases the device's cached memory and the device itself. Tensors of
// the device must not be used afterwards.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	_ = d.raw.Sync()
	d.pool.EmptyCache()
	return d.raw.Close()
}

var fusionOn atomic.Bool

func init() { fusionOn.Store(os.Getenv("SHADERFLOW_FUSION") != "0") }

// SetFusion turns kernel fusion on or off for every device and returns the
// previous setting. It is on unless SHADERFLOW_FUSION=0. The setting is
// process-wide and read whenever results are realized, so changing it also
// changes how other goroutines' pending work is grouped into kernels.
func SetFusion(on bool) (previous bool) { return fusionOn.Swap(on) }

// Fusion reports whether kernel fusion is on.
func Fusion() bool { return fusionOn.Load() }
