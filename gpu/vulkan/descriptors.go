//go:build cgo

package vulkan

/*
#include "native.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// EnvDescriptors names the environment variable that chooses how dispatches
// get their descriptors when a device opens: "cache" (the default: descriptor
// sets cached by their bindings, the params at a dynamic offset), "push"
// (VK_KHR_push_descriptor where the adapter has it, else "cache") or "fresh"
// (a new set per dispatch from the batch's pool, the cache disabled; for
// measurements and tests).
const EnvDescriptors = "SHADERFLOW_VULKAN_DESCRIPTORS"

// descriptorMode is how dispatches get their descriptors.
type descriptorMode uint8

const (
	descCache descriptorMode = iota // cached sets; binding 0 dynamic
	descPush                        // vkCmdPushDescriptorSetKHR; no sets
	descFresh                       // a set per dispatch; binding 0 dynamic
)

var descModeNames = [...]string{"cache", "push", "fresh"}

// String names the mode as EnvDescriptors spells it.
func (m descriptorMode) String() string { return descModeNames[m] }

// pushExtension is the device extension of the push mode.
const pushExtension = "VK_KHR_push_descriptor"

// paramsRange is the range of binding 0 in cached sets: launches with more
// params bytes get a fresh set (with the params' exact range) instead.
const paramsRange = 64 << 10

// chooseDescriptors picks the mode for an adapter from EnvDescriptors; push
// needs the extension and room for every binding in one pushed set.
func chooseDescriptors(a *adapter, bindings int) (descriptorMode, error) {
	want := strings.ToLower(strings.TrimSpace(os.Getenv(EnvDescriptors)))
	switch want {
	case "", "cache":
		return descCache, nil
	case "fresh":
		return descFresh, nil
	case "push":
		if hasExtension(a.pd, pushExtension) &&
			int(C.sf_max_push_descriptors(C.VkPhysicalDevice(unsafe.Pointer(a.pd)))) >= bindings {
			return descPush, nil
		}
		return descCache, nil
	}
	return descCache, fmt.Errorf("vulkan: %s=%q: want cache, push or fresh", EnvDescriptors, want)
}

// bindingType is the descriptor type of binding i of the set layout: the
// params binding is dynamic except when descriptors are pushed (push
// descriptor layouts cannot hold dynamic descriptors).
func (d *Device) bindingType(i int) vk.DescriptorType {
	if i == 0 && d.descMode != descPush {
		return vk.DescriptorTypeStorageBufferDynamic
	}
	return vk.DescriptorTypeStorageBuffer
}

// layoutFlags are the set layout's creation flags.
func (d *Device) layoutFlags() vk.DescriptorSetLayoutCreateFlags {
	if d.descMode == descPush {
		return vk.DescriptorSetLayoutCreateFlags(vk.DescriptorSetLayoutCreatePushDescriptorBit)
	}
	return 0
}

// createDescriptorPool creates a pool for sets sets of the device's layout.
func (d *Device) createDescriptorPool(sets int) (vk.DescriptorPool, error) {
	sizes := []vk.DescriptorPoolSize{
		{Type: vk.DescriptorTypeStorageBufferDynamic, DescriptorCount: uint32(sets)},
		{Type: vk.DescriptorTypeStorageBuffer, DescriptorCount: uint32(sets * (d.layoutBindings - 1))},
	}
	pi := &vk.DescriptorPoolCreateInfo{
		SType:         vk.StructureTypeDescriptorPoolCreateInfo,
		MaxSets:       uint32(sets),
		PoolSizeCount: uint32(len(sizes)),
		PPoolSizes:    sizes,
	}
	var pool vk.DescriptorPool
	res := vk.CreateDescriptorPool(d.dev, pi, nil, &pool)
	pi.Free()
	return pool, vkErr("vkCreateDescriptorPool", res)
}

// bindDescriptors sets the descriptor fields of d.args for a dispatch of the
// recording batch whose params are nparams bytes at arena offset off; key and
// bufs describe its data bindings (already in d.args.b[1:]).
func (d *Device) bindDescriptors(bt *batch, key *setKey, bufs []*Buffer, off, nparams int64) error {
	a := d.args
	a.pool, a.set, a.write, a.dynamic, a.dyn_offset = 0, 0, 0, 0, 0
	arena := bt.arena.handle()
	exact := C.sf_bind{buffer: arena, offset: C.VkDeviceSize(off), _range: C.VkDeviceSize(max(nparams, 4))}
	if d.descMode == descPush {
		a.b[0] = exact
		return nil
	}
	a.dynamic = 1
	if d.descMode == descCache && nparams <= d.paramsRange {
		a.b[0] = C.sf_bind{buffer: arena, offset: 0, _range: C.VkDeviceSize(d.paramsRange)}
		set, ok, err := d.cachedSet(key, bufs, bt.seq)
		if err != nil {
			return err
		}
		if ok {
			a.set, a.dyn_offset = set, C.uint32_t(off)
			return nil
		}
	}
	// A fresh set from the batch's pool, reset when the batch completes.
	a.b[0] = exact
	a.pool, a.dsl = bt.cpool(), d.cdsl()
	d.stats.DescriptorFresh++
	return nil
}
