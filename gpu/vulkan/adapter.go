//go:build cgo

package vulkan

/*
#include <stdlib.h>
#include "native.h"
*/
import "C"

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// adapter is one physical device and what the backend needs to know of it.
type adapter struct {
	pd              vk.PhysicalDevice
	info            device.Info
	apiVersion      uint32
	vendorID        uint32
	mem             vk.PhysicalDeviceMemoryProperties
	queueFamily     uint32
	timestampBits   uint32
	timestampPeriod float64 // nanoseconds per tick
	minStorageAlign int64
	maxStorageRange int64
	maxAllocCount   uint32
	maxBindings     int  // storage buffers one compute shader may bind, params included
	robust          bool // robustBufferAccess is supported
	float16         bool
	// preserveNaN: the device offers VK_KHR_shader_float_controls with
	// shaderSignedZeroInfNanPreserveFloat32 (see floatcontrols.go).
	preserveNaN bool
}

// softwareNames identify Vulkan implementations that run on the CPU even if
// they report another device type.
var softwareNames = []string{"llvmpipe", "lavapipe", "swiftshader"}

// kindOf maps a device type (and name) to a device.Kind.
func kindOf(t vk.PhysicalDeviceType, name string) device.Kind {
	lower := strings.ToLower(name)
	for _, s := range softwareNames {
		if strings.Contains(lower, s) {
			return device.KindSoftwareGPU
		}
	}
	switch t {
	case vk.PhysicalDeviceTypeDiscreteGpu:
		return device.KindDiscreteGPU
	case vk.PhysicalDeviceTypeIntegratedGpu:
		return device.KindIntegratedGPU
	case vk.PhysicalDeviceTypeVirtualGpu, vk.PhysicalDeviceTypeOther:
		return device.KindVirtualGPU
	}
	return device.KindSoftwareGPU
}

// driverVersionString decodes a driverVersion the way vendors pack it.
func driverVersionString(vendor, v uint32) string {
	if vendor == 0x10de { // NVIDIA: 10.8.8.6 bits
		return fmt.Sprintf("%d.%d.%d.%d", v>>22, (v>>14)&0xff, (v>>6)&0xff, v&0x3f)
	}
	return fmt.Sprintf("%d.%d.%d", v>>22, (v>>12)&0x3ff, v&0xfff)
}

// enumerateAdapters lists the instance's physical devices that have a
// compute queue, best kind first.
func enumerateAdapters(in *instance) ([]*adapter, error) {
	var n uint32
	if err := vkErr("vkEnumeratePhysicalDevices", vk.EnumeratePhysicalDevices(in.handle, &n, nil)); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", err, installHint, device.ErrUnavailable)
	}
	if n == 0 {
		return nil, fmt.Errorf("vulkan: the loader found no Vulkan device: %s: %w", installHint, device.ErrUnavailable)
	}
	pds := make([]vk.PhysicalDevice, n)
	if err := vkErr("vkEnumeratePhysicalDevices", vk.EnumeratePhysicalDevices(in.handle, &n, pds)); err != nil {
		return nil, fmt.Errorf("%w: %w", err, device.ErrUnavailable)
	}
	type ranked struct {
		a    *adapter
		rank int
		pos  int
	}
	var rs []ranked
	for i, pd := range pds[:n] {
		a := describe(in, pd)
		if a == nil {
			continue
		}
		rs = append(rs, ranked{a, a.info.Kind.Rank(), i})
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("vulkan: no Vulkan device has a compute queue: %w", device.ErrUnavailable)
	}
	slices.SortStableFunc(rs, func(x, y ranked) int { return cmp.Compare(x.rank, y.rank) })
	out := make([]*adapter, len(rs))
	for i, r := range rs {
		r.a.info.Index = i
		out[i] = r.a
	}
	return out, nil
}

// describe queries one physical device; it returns nil when the device has
// no compute queue.
func describe(in *instance, pd vk.PhysicalDevice) *adapter {
	var props vk.PhysicalDeviceProperties
	vk.GetPhysicalDeviceProperties(pd, &props)
	props.Deref()
	props.Limits.Deref()
	defer props.Free()
	lim := props.Limits
	a := &adapter{pd: pd, apiVersion: props.ApiVersion, vendorID: props.VendorID}

	var family, tsBits C.uint32_t
	if C.sf_compute_queue(C.VkPhysicalDevice(unsafe.Pointer(pd)), &family, &tsBits) == 0 {
		return nil
	}
	a.queueFamily, a.timestampBits = uint32(family), uint32(tsBits)

	var feats vk.PhysicalDeviceFeatures
	vk.GetPhysicalDeviceFeatures(pd, &feats)
	feats.Deref()
	a.robust = feats.RobustBufferAccess == vk.True
	feats.Free()

	vk.GetPhysicalDeviceMemoryProperties(pd, &a.mem)
	a.mem.Deref()
	for i := range a.mem.MemoryTypes[:a.mem.MemoryTypeCount] {
		a.mem.MemoryTypes[i].Deref()
	}
	for i := range a.mem.MemoryHeaps[:a.mem.MemoryHeapCount] {
		a.mem.MemoryHeaps[i].Deref()
	}

	name := vk.ToString(props.DeviceName[:])
	driver := driverVersionString(props.VendorID, props.DriverVersion)
	var ext C.sf_device_info
	v11 := props.ApiVersion >= vk.MakeVersion(1, 1, 0) && in.apiVersion >= vk.MakeVersion(1, 1, 0)
	if v11 {
		v12 := props.ApiVersion >= vk.MakeVersion(1, 2, 0)
		wantDriver := v12 || hasExtension(pd, "VK_KHR_driver_properties")
		wantF16 := v12 || hasExtension(pd, "VK_KHR_shader_float16_int8")
		wantFC := hasExtension(pd, floatControlsExtension)
		C.sf_query_device(C.VkPhysicalDevice(unsafe.Pointer(pd)), cflag(wantDriver), cflag(wantF16), cflag(wantFC), &ext)
		a.preserveNaN = wantFC && ext.preserve_nan32 != 0
	}
	if ext.have_driver != 0 {
		driver = strings.TrimSpace(C.GoString(&ext.driver_name[0]) + " " + C.GoString(&ext.driver_info[0]))
	}
	heap := largestDeviceHeap(&a.mem)
	maxAlloc := heap
	if ext.have_max_alloc != 0 {
		maxAlloc = min(int64(ext.max_alloc), heap)
	}
	a.maxBindings = int(min(lim.MaxPerStageDescriptorStorageBuffers, lim.MaxDescriptorSetStorageBuffers))
	a.minStorageAlign = max(int64(lim.MinStorageBufferOffsetAlignment), 4)
	a.maxStorageRange = int64(lim.MaxStorageBufferRange)
	a.maxAllocCount = lim.MaxMemoryAllocationCount
	a.timestampPeriod = float64(lim.TimestampPeriod)
	a.float16 = ext.float16 != 0
	a.info = device.Info{
		Backend:     "vulkan",
		Name:        name,
		Driver:      driver,
		Kind:        kindOf(props.DeviceType, name),
		MemoryBytes: heap,
		Limits: device.Limits{
			MaxAllocBytes:       maxAlloc,
			MaxBindingBytes:     min(int64(lim.MaxStorageBufferRange), maxAlloc),
			MaxBuffersPerKernel: maxDataBindings(a.maxBindings),
			MaxWorkgroups:       [3]int{int(lim.MaxComputeWorkGroupCount[0]), int(lim.MaxComputeWorkGroupCount[1]), int(lim.MaxComputeWorkGroupCount[2])},
			MaxWorkgroupSize:    int(lim.MaxComputeWorkGroupInvocations),
			SharedMemoryBytes:   int(lim.MaxComputeSharedMemorySize),
		},
		DTypes: gpu.DTypes,
		Features: device.Features{
			Float16:    a.float16,
			Subgroups:  ext.subgroup_stages&C.SF_VK_SHADER_STAGE_COMPUTE_BIT != 0 && ext.subgroup_ops&C.SF_VK_SUBGROUP_FEATURE_BASIC_BIT != 0,
			Timestamps: a.timestampBits > 0 && a.timestampPeriod > 0,
		},
	}
	return a
}

// largestDeviceHeap returns the size of the largest device-local heap (or
// the largest heap if none is device-local).
func largestDeviceHeap(m *vk.PhysicalDeviceMemoryProperties) int64 {
	var best, any int64
	for _, h := range m.MemoryHeaps[:m.MemoryHeapCount] {
		any = max(any, int64(h.Size))
		if h.Flags&vk.MemoryHeapFlags(vk.MemoryHeapDeviceLocalBit) != 0 {
			best = max(best, int64(h.Size))
		}
	}
	if best == 0 {
		return any
	}
	return best
}

// hasExtension reports whether the physical device offers the extension.
func hasExtension(pd vk.PhysicalDevice, name string) bool {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.sf_has_device_extension(C.VkPhysicalDevice(unsafe.Pointer(pd)), cs) != 0
}
