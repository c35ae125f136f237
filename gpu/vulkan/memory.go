//go:build cgo

package vulkan

/*
#include "native.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Memory property bits.
const (
	memDeviceLocal  = uint32(vk.MemoryPropertyDeviceLocalBit)
	memHostVisible  = uint32(vk.MemoryPropertyHostVisibleBit)
	memHostCoherent = uint32(vk.MemoryPropertyHostCoherentBit)
	memHostCached   = uint32(vk.MemoryPropertyHostCachedBit)
)

// usageData is the usage of every data, params and staging buffer.
const usageData = vk.BufferUsageFlags(vk.BufferUsageStorageBufferBit | vk.BufferUsageTransferSrcBit | vk.BufferUsageTransferDstBit)

// memoryPlan is the memory types the device allocates from.
type memoryPlan struct {
	// mappedData is set when data buffers live in memory that is both
	// device-local and host-visible on the largest device heap (lavapipe,
	// integrated GPUs): Write and Read then copy directly.
	mappedData bool
	// dataMask and hostMask are the required property flags of data and
	// staging memory; hostPrefer is preferred among the host types.
	dataMask, hostMask, hostPrefer uint32
}

// stagedDataForTests makes newly opened devices keep data buffers unmapped,
// as on a discrete GPU, so that tests exercise the staging paths on
// unified-memory adapters too.
var stagedDataForTests bool

// planMemory chooses memory types for an adapter's memory properties.
func planMemory(m *vk.PhysicalDeviceMemoryProperties) memoryPlan {
	p := memoryPlan{dataMask: memDeviceLocal, hostMask: memHostVisible | memHostCoherent, hostPrefer: memHostCached}
	heap := largestDeviceHeap(m)
	for _, t := range m.MemoryTypes[:m.MemoryTypeCount] {
		f := uint32(t.PropertyFlags)
		unified := memDeviceLocal | memHostVisible | memHostCoherent
		if f&unified == unified && int64(m.MemoryHeaps[t.HeapIndex].Size) == heap {
			p.mappedData = true
			p.dataMask = unified
		}
	}
	if stagedDataForTests {
		p.mappedData, p.dataMask = false, memDeviceLocal
	}
	return p
}

// findMemoryType returns the first type allowed by bits that has all of
// want, preferring one that also has prefer; -1 if none.
func findMemoryType(m *vk.PhysicalDeviceMemoryProperties, bits, want, prefer uint32) int {
	best := -1
	for i, t := range m.MemoryTypes[:m.MemoryTypeCount] {
		f := uint32(t.PropertyFlags)
		if bits&(1<<i) == 0 || f&want != want {
			continue
		}
		if f&prefer == prefer {
			return i
		}
		if best < 0 {
			best = i
		}
	}
	return best
}

// rawBuffer is a VkBuffer with its own memory, mapped when host-visible.
type rawBuffer struct {
	buf    vk.Buffer
	mem    vk.DeviceMemory
	size   int64          // bytes of the VkBuffer
	mapped unsafe.Pointer // host address of byte 0, or nil
}

// handle returns the buffer's handle for the C layer.
func (r *rawBuffer) handle() C.VkBuffer { return C.VkBuffer(uintptr(unsafe.Pointer(r.buf))) }

// bytes returns the mapped memory as a slice.
func (r *rawBuffer) bytes() []byte { return unsafe.Slice((*byte)(r.mapped), r.size) }

// createBuffer makes a buffer of size bytes in memory with the wanted
// properties (host: staging memory; otherwise data memory) and maps it when
// the memory is host-visible.
func (d *Device) createBuffer(size int64, host bool) (*rawBuffer, error) {
	ci := &vk.BufferCreateInfo{
		SType:       vk.StructureTypeBufferCreateInfo,
		Size:        vk.DeviceSize(size),
		Usage:       usageData,
		SharingMode: vk.SharingModeExclusive,
	}
	r := &rawBuffer{size: size}
	var buf vk.Buffer
	res := vk.CreateBuffer(d.dev, ci, nil, &buf)
	ci.Free()
	r.buf = buf
	if err := vkErr("vkCreateBuffer", res); err != nil {
		return nil, err
	}
	var req vk.MemoryRequirements
	vk.GetBufferMemoryRequirements(d.dev, r.buf, &req)
	req.Deref()
	req.Free()
	want, prefer := d.plan.dataMask, d.plan.dataMask
	if host {
		want, prefer = d.plan.hostMask, d.plan.hostMask|d.plan.hostPrefer
	}
	ti := findMemoryType(&d.ad.mem, req.MemoryTypeBits, want, prefer)
	if ti < 0 {
		vk.DestroyBuffer(d.dev, r.buf, nil)
		return nil, fmt.Errorf("vulkan: no memory type with properties %#x for a buffer (allowed types %#x)", want, req.MemoryTypeBits)
	}
	ai := &vk.MemoryAllocateInfo{
		SType:           vk.StructureTypeMemoryAllocateInfo,
		AllocationSize:  req.Size,
		MemoryTypeIndex: uint32(ti),
	}
	var mem vk.DeviceMemory
	res = vk.AllocateMemory(d.dev, ai, nil, &mem)
	ai.Free()
	r.mem = mem
	if err := vkErr("vkAllocateMemory", res); err != nil {
		vk.DestroyBuffer(d.dev, r.buf, nil)
		return nil, fmt.Errorf("vulkan: allocating %d bytes: %w", size, err)
	}
	if err := vkErr("vkBindBufferMemory", vk.BindBufferMemory(d.dev, r.buf, r.mem, 0)); err != nil {
		d.destroyRaw(r)
		return nil, err
	}
	if uint32(d.ad.mem.MemoryTypes[ti].PropertyFlags)&memHostVisible != 0 && (host || d.plan.mappedData) {
		var p unsafe.Pointer
		if err := vkErr("vkMapMemory", vk.MapMemory(d.dev, r.mem, 0, vk.DeviceSize(vk.WholeSize), 0, &p)); err != nil {
			d.destroyRaw(r)
			return nil, err
		}
		r.mapped = p
	}
	d.memCount++
	return r, nil
}

// destroyRaw releases a buffer and its memory (unmapping frees the mapping).
func (d *Device) destroyRaw(r *rawBuffer) {
	if r.buf != vk.NullBuffer {
		vk.DestroyBuffer(d.dev, r.buf, nil)
	}
	if r.mem != vk.NullDeviceMemory {
		vk.FreeMemory(d.dev, r.mem, nil)
		d.memCount--
	}
	*r = rawBuffer{}
}

// checkAlloc refuses requests the device can never satisfy, wrapping
// device.ErrOutOfMemory so that the pool can free its cache and retry.
func (d *Device) checkAlloc(bytes int64) error {
	if bytes > d.info.Limits.MaxAllocBytes {
		return fmt.Errorf("vulkan: allocation of %d bytes exceeds the adapter's largest allocation (%d bytes): %w", bytes, d.info.Limits.MaxAllocBytes, device.ErrOutOfMemory)
	}
	if d.ad.maxAllocCount > 0 && d.memCount >= int(d.ad.maxAllocCount) {
		return fmt.Errorf("vulkan: the adapter allows at most %d live allocations: %w", d.ad.maxAllocCount, device.ErrOutOfMemory)
	}
	return nil
}
