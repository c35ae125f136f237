//go:build cgo

package webgpu

import (
	"encoding/binary"
	"fmt"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/shaders"
)

// A shader module is the kind's WGSL composed with generated hooks for a
// number of data bindings; its pipelines share one layout per binding count.
// Module keys are kind, binding count and gpu.HooksKey (which identifies
// the generated text); pipeline keys add the entry point.

// layout is the bind group and pipeline layout for n data bindings: binding
// 0 read-only storage with a dynamic offset (the params), 1..n read-write
// storage.
type layout struct {
	bgl *wgpu.BindGroupLayout
	pl  *wgpu.PipelineLayout
}

type pipelineCache struct {
	modules map[string]*wgpu.ShaderModule
	pipes   map[string]*wgpu.ComputePipeline
	layouts map[int]*layout
	key     []byte // scratch
}

func (c *pipelineCache) init() {
	c.modules = map[string]*wgpu.ShaderModule{}
	c.pipes = map[string]*wgpu.ComputePipeline{}
	c.layouts = map[int]*layout{}
}

// layout returns the layout for n data bindings.
func (c *pipelineCache) layout(d *Device, n int) (*layout, error) {
	if l, ok := c.layouts[n]; ok {
		return l, nil
	}
	entries := make([]wgpu.BindGroupLayoutEntry, n+1)
	entries[0] = wgpu.BindGroupLayoutEntry{Binding: 0, Visibility: wgpu.ShaderStage_Compute,
		Buffer: wgpu.BufferBindingLayout{Type: wgpu.BufferBindingType_ReadOnlyStorage, HasDynamicOffset: true}}
	for i := 1; i <= n; i++ {
		entries[i] = wgpu.BindGroupLayoutEntry{Binding: uint32(i), Visibility: wgpu.ShaderStage_Compute,
			Buffer: wgpu.BufferBindingLayout{Type: wgpu.BufferBindingType_Storage}}
	}
	bgl, err := d.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Entries: entries})
	if err != nil {
		return nil, fmt.Errorf("webgpu: bind group layout: %v", err)
	}
	pl, err := d.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{BindGroupLayouts: []*wgpu.BindGroupLayout{bgl}})
	if err != nil {
		bgl.Release()
		return nil, fmt.Errorf("webgpu: pipeline layout: %v", err)
	}
	l := &layout{bgl: bgl, pl: pl}
	c.layouts[n] = l
	return l, nil
}

// get returns the pipeline of a launch, compiling it on first use.
func (c *pipelineCache) get(d *Device, l *gpu.Launch) (*wgpu.ComputePipeline, error) {
	k := append(c.key[:0], l.Kind...)
	k = binary.AppendUvarint(append(k, 0), uint64(len(l.Bindings)))
	k = gpu.AppendHooksKey(k, l)
	mlen := len(k)
	k = append(append(k, 0), l.Entry...)
	c.key = k
	if p, ok := c.pipes[string(k)]; ok {
		return p, nil
	}
	lay, err := c.layout(d, len(l.Bindings))
	if err != nil {
		return nil, err
	}
	mod, ok := c.modules[string(k[:mlen])]
	if !ok {
		src := shaders.Compose(l.Kind, len(l.Bindings), gpu.GenerateHooks(l))
		mod, err = d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
			Label:          string(l.Kind),
			WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: src},
		})
		if err != nil {
			return nil, fmt.Errorf("webgpu: compiling the %s shader: %v", l.Kind, err)
		}
		c.modules[string(k[:mlen])] = mod
	}
	p, err := d.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
		Label:   l.Entry,
		Layout:  lay.pl,
		Compute: wgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: l.Entry},
	})
	if err != nil {
		return nil, fmt.Errorf("webgpu: %s pipeline: %v", l.Entry, err)
	}
	c.pipes[string(k)] = p
	return p, nil
}

func (c *pipelineCache) releaseAll() {
	for _, p := range c.pipes {
		p.Release()
	}
	for _, m := range c.modules {
		m.Release()
	}
	for _, l := range c.layouts {
		l.pl.Release()
		l.bgl.Release()
	}
	c.init()
}
