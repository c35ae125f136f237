//go:build cgo

package webgpu

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

func init() { device.Register(&backend{}) }

// backend enumerates adapters once, through one process-wide instance.
type backend struct {
	once     sync.Once
	inst     *wgpu.Instance
	adapters []*wgpu.Adapter // sorted like infos
	infos    []device.Info
	err      error
}

// Name returns "webgpu".
func (*backend) Name() string { return Name }

// instanceBackends are the native APIs wgpu may use: Vulkan (Metal on
// macOS), never OpenGL, to which wgpu would otherwise fall back silently.
func instanceBackends() wgpu.InstanceBackend {
	if runtime.GOOS == "darwin" {
		return wgpu.InstanceBackend_Metal
	}
	return wgpu.InstanceBackend_Vulkan
}

// installHint says what to install when no adapter is found.
const installHint = "install a Vulkan driver and loader (Debian/Ubuntu: apt-get install mesa-vulkan-drivers libvulkan1; " +
	"mesa-vulkan-drivers includes lavapipe, a software Vulkan device)"

func (b *backend) load() {
	b.once.Do(func() {
		quietDriverLogs()
		b.inst = wgpu.CreateInstance(&wgpu.InstanceDescriptor{Backends: instanceBackends()})
		all := b.inst.EnumerateAdapters(&wgpu.InstanceEnumerateAdapterOptons{Backends: instanceBackends()})
		if len(all) == 0 {
			b.err = fmt.Errorf("webgpu: no Vulkan adapter found (%s): %w", installHint, device.ErrUnavailable)
			return
		}
		type entry struct {
			a    *wgpu.Adapter
			info device.Info
		}
		es := make([]entry, len(all))
		for i, a := range all {
			es[i] = entry{a, adapterInfo(a)}
		}
		slices.SortStableFunc(es, func(x, y entry) int { return cmp.Compare(x.info.Kind.Rank(), y.info.Kind.Rank()) })
		for i, e := range es {
			e.info.Index = i
			b.adapters = append(b.adapters, e.a)
			b.infos = append(b.infos, e.info)
		}
	})
}

// Adapters lists the Vulkan (Metal) adapters, discrete GPUs first.
func (b *backend) Adapters() ([]device.Info, error) {
	b.load()
	if b.err != nil {
		return nil, b.err
	}
	return slices.Clone(b.infos), nil
}

// Open opens adapter index of Adapters.
func (b *backend) Open(index int) (device.Device, error) {
	b.load()
	if b.err != nil {
		return nil, b.err
	}
	if index < 0 || index >= len(b.adapters) {
		return nil, fmt.Errorf("webgpu: no adapter %d (have %d): %w", index, len(b.adapters), device.ErrUnavailable)
	}
	return open(b.adapters[index], b.infos[index])
}

// adapterInfo describes an adapter with its real limits.
func adapterInfo(a *wgpu.Adapter) device.Info {
	p := a.GetProperties()
	l := a.GetLimits().Limits
	info := device.Info{
		Backend: Name,
		Name:    p.Name,
		Driver:  fmt.Sprintf("%s (wgpu-native 0.17, %s)", p.DriverDescription, p.BackendType),
		Kind:    adapterKind(p.AdapterType),
		DTypes:  gpu.DTypes,
		Limits: device.Limits{
			MaxAllocBytes:       saturatingInt64(l.MaxBufferSize),
			MaxBindingBytes:     saturatingInt64(uint64(l.MaxStorageBufferBindingSize)),
			MaxBuffersPerKernel: int(l.MaxStorageBuffersPerShaderStage) - 1, // binding 0 holds the params
			MaxWorkgroups:       [3]int{int(l.MaxComputeWorkgroupsPerDimension), int(l.MaxComputeWorkgroupsPerDimension), int(l.MaxComputeWorkgroupsPerDimension)},
			MaxWorkgroupSize:    int(l.MaxComputeInvocationsPerWorkgroup),
			SharedMemoryBytes:   int(l.MaxComputeWorkgroupStorageSize),
		},
	}
	if info.Kind == device.KindSoftwareGPU {
		info.MemoryBytes = systemMemory()
	}
	return info
}

// saturatingInt64 converts an adapter limit to int64, keeping a limit above
// math.MaxInt64 (NVIDIA's Vulkan driver reports a largest buffer of
// 2^64-1 bytes, "no limit") at MaxInt64: wrapped to -1, it would refuse
// every allocation as larger than the largest buffer.
func saturatingInt64(v uint64) int64 {
	if v > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}

// adapterKind maps WebGPU's adapter types; WebGPU has no "virtual" type, so
// an unknown type counts as one.
func adapterKind(t wgpu.AdapterType) device.Kind {
	switch t {
	case wgpu.AdapterType_DiscreteGPU:
		return device.KindDiscreteGPU
	case wgpu.AdapterType_IntegratedGPU:
		return device.KindIntegratedGPU
	case wgpu.AdapterType_CPU:
		return device.KindSoftwareGPU
	}
	return device.KindVirtualGPU
}

// errClosed is returned by every call on a closed device.
var errClosed = fmt.Errorf("webgpu: %w", device.ErrClosed)
