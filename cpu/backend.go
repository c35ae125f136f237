package cpu

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Name is the backend's registered name.
const Name = "cpu"

// MemoryLimitEnv is the environment variable that caps a device's allocated
// bytes (see Config.MemoryLimit); it is read when a device is opened.
const MemoryLimitEnv = "SHADERFLOW_CPU_MEMORY_LIMIT"

// SyncEnv is the environment variable that, set to 1, opens devices that run
// each kernel before its call returns (see Config.Synchronous).
const SyncEnv = "SHADERFLOW_CPU_SYNC"

func init() { device.Register(Backend{}) }

// Backend is the CPU backend. It has one adapter, the host.
type Backend struct{}

// Name returns "cpu".
func (Backend) Name() string { return Name }

// Adapters returns the host CPU.
func (Backend) Adapters() ([]device.Info, error) { return []device.Info{hostInfo()}, nil }

// Open opens the host CPU with the memory limit from SHADERFLOW_CPU_MEMORY_LIMIT.
func (Backend) Open(index int) (device.Device, error) {
	if index != 0 {
		return nil, fmt.Errorf("cpu: adapter %d does not exist (the cpu backend has one adapter, 0)", index)
	}
	var cfg Config
	if s := os.Getenv(MemoryLimitEnv); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("cpu: %s=%q is not a byte count", MemoryLimitEnv, s)
		}
		cfg.MemoryLimit = n
	}
	switch s := os.Getenv(SyncEnv); s {
	case "", "0":
	case "1":
		cfg.Synchronous = true
	default:
		return nil, fmt.Errorf("cpu: %s=%q: want 1 (kernels run before their calls return) or 0", SyncEnv, s)
	}
	return New(cfg), nil
}

// Config configures a device opened with New.
type Config struct {
	// MemoryLimit caps the bytes allocated at once; zero means no limit
	// beyond the host's memory.
	MemoryLimit int64
	// Workers is the number of goroutines kernels use; zero means GOMAXPROCS.
	Workers int
	// Synchronous runs each kernel before its call returns. By default
	// kernels run in call order on a goroutine of the device while the
	// caller goes on (Read and Sync wait for them), so that the front end
	// builds the next kernels while earlier ones compute.
	Synchronous bool
}

// Device is an opened CPU device. Its methods are safe for concurrent use,
// though kernels from several goroutines run one at a time.
type Device struct {
	mu          sync.Mutex // held while a kernel runs, and by Read and Write
	info        device.Info
	synchronous bool
	stream      stream // the kernels not yet run (unless synchronous)
	closed      atomic.Bool

	calls     atomic.Uint64 // kernel calls accepted (KernelCalls)
	profiling atomic.Bool   // time kernels (SetProfiling)
	timesMu   sync.Mutex
	times     []device.KernelTime // timed kernels not yet collected

	memMu   sync.Mutex // guards the allocation count and staging
	limit   int64
	inUse   int64
	staging [][]byte // idle copies of written data (see Write)

	workers int
	ws      []*workspace // one per worker
	plans   [2]plan      // reused compiled programs (prologue/main, epilogue)
	scratch scratch      // device-wide temporaries
}

// New opens a CPU device with cfg.
func New(cfg Config) *Device {
	w := cfg.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	d := &Device{info: hostInfo(), limit: cfg.MemoryLimit, workers: w, synchronous: cfg.Synchronous}
	d.ws = make([]*workspace, w)
	for i := range d.ws {
		d.ws[i] = &workspace{}
	}
	return d
}

// Info describes the host CPU.
func (d *Device) Info() device.Info { return d.info }

// Sync waits for the kernels called so far and returns the first error they
// hit since the previous Read or Sync. After Close it returns
// device.ErrClosed.
func (d *Device) Sync() error {
	err := d.stream.drain()
	if d.closed.Load() {
		return device.ErrClosed
	}
	return err
}

// Close waits for pending kernels and releases the device's scratch memory.
// Buffers must not be used afterwards; later calls return device.ErrClosed.
func (d *Device) Close() error {
	d.closed.Store(true)
	d.stream.stop()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ws = nil
	d.scratch = scratch{}
	d.plans = [2]plan{}
	return nil
}

// lock locks the device for a kernel; the caller unlocks d.mu when lock
// returns nil.
func (d *Device) lock() error {
	d.mu.Lock()
	if d.ws == nil { // closed
		d.mu.Unlock()
		return device.ErrClosed
	}
	return nil
}

// begin starts a kernel: it runs the kernel's validation, takes the device
// lock and returns the bytes of bufs in order. When it returns no error the
// caller holds d.mu and must unlock it.
func (d *Device) begin(validate func() error, bufs ...device.Buffer) ([][]byte, error) {
	if err := validate(); err != nil {
		return nil, err
	}
	if err := d.lock(); err != nil {
		return nil, err
	}
	data := make([][]byte, len(bufs))
	for i, b := range bufs {
		var err error
		if data[i], err = d.data(b); err != nil {
			d.mu.Unlock()
			return nil, err
		}
	}
	return data, nil
}
