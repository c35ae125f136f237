//go:build cgo

package vulkan

/*
#include <stdlib.h>
#include "native.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"github.com/shaderflow/shaderflow/internal/spv"
)

// pipeline is a created compute pipeline (created by the C layer: the
// binding's vkCreateComputePipelines frees its C copy of the create infos
// from a GC finalizer that may run during the call).
type pipeline struct {
	module vk.ShaderModule // owned by the pipeline, or null when shared
	cp     C.VkPipeline
}

// cpipe returns the pipeline's handle for the C layer.
func (p *pipeline) cpipe() C.VkPipeline { return p.cp }

// createLayouts makes the one descriptor-set layout every kernel uses:
// binding 0 (params) and the data bindings 1..shaders.DataBindings, all
// storage buffers (binding 0 dynamic unless descriptors are pushed; see
// descriptors.go).
func (d *Device) createLayouts() error {
	if d.layoutBindings > d.ad.maxBindings {
		return fmt.Errorf("vulkan: the kernels bind %d storage buffers, %s allows %d per shader", d.layoutBindings, d.info.Name, d.ad.maxBindings)
	}
	bs := make([]vk.DescriptorSetLayoutBinding, d.layoutBindings)
	for i := range bs {
		bs[i] = vk.DescriptorSetLayoutBinding{
			Binding:         uint32(i),
			DescriptorType:  d.bindingType(i),
			DescriptorCount: 1,
			StageFlags:      vk.ShaderStageFlags(vk.ShaderStageComputeBit),
		}
	}
	ci := &vk.DescriptorSetLayoutCreateInfo{
		SType:        vk.StructureTypeDescriptorSetLayoutCreateInfo,
		Flags:        d.layoutFlags(),
		BindingCount: uint32(len(bs)),
		PBindings:    bs,
	}
	var dsl vk.DescriptorSetLayout
	res := vk.CreateDescriptorSetLayout(d.dev, ci, nil, &dsl)
	ci.Free()
	d.dsl = dsl
	for i := range bs {
		bs[i].Free()
	}
	if err := vkErr("vkCreateDescriptorSetLayout", res); err != nil {
		return err
	}
	pi := &vk.PipelineLayoutCreateInfo{
		SType:          vk.StructureTypePipelineLayoutCreateInfo,
		SetLayoutCount: 1,
		PSetLayouts:    []vk.DescriptorSetLayout{d.dsl},
	}
	var pl vk.PipelineLayout
	res = vk.CreatePipelineLayout(d.dev, pi, nil, &pl)
	pi.Free()
	d.pipeLayout = pl
	return vkErr("vkCreatePipelineLayout", res)
}

// cdsl and cplayout return the layouts' handles for the C layer.
func (d *Device) cdsl() C.VkDescriptorSetLayout {
	return C.VkDescriptorSetLayout(uintptr(unsafe.Pointer(d.dsl)))
}
func (d *Device) cplayout() C.VkPipelineLayout {
	return C.VkPipelineLayout(uintptr(unsafe.Pointer(d.pipeLayout)))
}

// newPipeline creates a compute pipeline, and the module it owns, from
// SPIR-V words.
func (d *Device) newPipeline(words []uint32, entry string) (*pipeline, error) {
	mod, err := d.newModule(words)
	if err != nil {
		return nil, err
	}
	p, err := d.newModulePipeline(mod, entry)
	if err != nil {
		vk.DestroyShaderModule(d.dev, mod, nil)
		return nil, err
	}
	p.module = mod
	return p, nil
}

// newModule creates a shader module from SPIR-V words, without their
// float-controls declarations where the device lacks them.
func (d *Device) newModule(words []uint32) (vk.ShaderModule, error) {
	if !d.preserveNaN {
		words = spv.WithoutFloatControls(words)
	}
	mi := &vk.ShaderModuleCreateInfo{
		SType:    vk.StructureTypeShaderModuleCreateInfo,
		CodeSize: uint(4 * len(words)),
		PCode:    words,
	}
	var mod vk.ShaderModule
	res := vk.CreateShaderModule(d.dev, mi, nil, &mod)
	mi.Free()
	return mod, vkErr("vkCreateShaderModule", res)
}

// newModulePipeline creates a compute pipeline of an entry point of a
// module it does not own.
func (d *Device) newModulePipeline(mod vk.ShaderModule, entry string) (*pipeline, error) {
	centry := C.CString(entry)
	defer C.free(unsafe.Pointer(centry))
	var pipe C.VkPipeline
	r := C.sf_create_pipeline(d.c, C.VkShaderModule(uintptr(unsafe.Pointer(mod))), d.cplayout(), centry, &pipe)
	if err := vkErr("vkCreateComputePipelines", vk.Result(r)); err != nil {
		return nil, err
	}
	return &pipeline{cp: pipe}, nil
}

// destroyPipelines releases every pipeline, module and layout.
func (d *Device) destroyPipelines() {
	d.pipelines.destroy(d)
	if d.pipeLayout != vk.NullPipelineLayout {
		vk.DestroyPipelineLayout(d.dev, d.pipeLayout, nil)
	}
	if d.dsl != vk.NullDescriptorSetLayout {
		vk.DestroyDescriptorSetLayout(d.dev, d.dsl, nil)
	}
}

// spirvWords converts little-endian SPIR-V bytes to words.
func spirvWords(b []byte) ([]uint32, error) {
	if len(b) < 20 || len(b)%4 != 0 || binary.LittleEndian.Uint32(b) != 0x07230203 {
		return nil, fmt.Errorf("not a little-endian SPIR-V module (%d bytes)", len(b))
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w, nil
}

// maxBinding returns the largest Binding decoration of a module, or -1.
func maxBinding(w []uint32) int {
	const opDecorate, decorationBinding = 71, 33
	best := -1
	for i := 5; i < len(w); {
		n := int(w[i] >> 16)
		if n == 0 {
			break
		}
		if w[i]&0xffff == opDecorate && n >= 4 && i+3 < len(w) && w[i+2] == decorationBinding {
			best = max(best, int(w[i+3]))
		}
		i += n
	}
	return best
}
