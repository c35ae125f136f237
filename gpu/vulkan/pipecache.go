//go:build cgo

package vulkan

/*
#include "native.h"
*/
import "C"

import (
	"fmt"
	"sync"

	vk "github.com/vulkan-go/vulkan"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/internal/spv"
	"github.com/shaderflow/shaderflow/shaders"
)

// pipelineCache holds a device's shader modules and pipelines. A module is
// a kind's precompiled SPIR-V with the launch's fused programs spliced into
// its hook functions (package spv), keyed by kind and gpu.HooksKey (which
// identifies everything the emitted code depends on; constants and seeds
// stay in the params); pipeline keys add the entry point. Entries live as
// long as the device.
type pipelineCache struct {
	modules map[string]vk.ShaderModule
	pipes   map[string]*pipeline
	key     []byte // scratch: lookups do not allocate
}

// launchKey returns the module key of a launch and, appended, its pipeline
// key; mlen is the module key's length.
func (c *pipelineCache) launchKey(l *gpu.Launch) (k []byte, mlen int) {
	k = append(append(c.key[:0], l.Kind...), 0)
	k = gpu.AppendHooksKey(k, l)
	mlen = len(k)
	k = append(append(k, 0), l.Entry...)
	c.key = k
	return k, mlen
}

// add records a pipeline created outside the cache for a launch's key.
func (c *pipelineCache) add(l *gpu.Launch, p *pipeline) {
	if c.pipes == nil {
		c.pipes = map[string]*pipeline{}
	}
	k, _ := c.launchKey(l)
	c.pipes[string(k)] = p
}

// pipelineFor returns the pipeline of a launch, generating its module and
// creating the pipeline on first use.
func (d *Device) pipelineFor(l *gpu.Launch) (*pipeline, error) {
	c := &d.pipelines
	k, mlen := c.launchKey(l)
	if p, ok := c.pipes[string(k)]; ok {
		return p, nil
	}
	if c.pipes == nil {
		c.pipes, c.modules = map[string]*pipeline{}, map[string]vk.ShaderModule{}
	}
	mod, ok := c.modules[string(k[:mlen])]
	if !ok {
		words, err := kernelWords(l)
		if err != nil {
			return nil, err
		}
		if nb := maxBinding(words) + 1; nb > d.layoutBindings {
			return nil, fmt.Errorf("vulkan: kind %s binds %d buffers, the layout has %d (regenerate shaders/spv)", l.Kind, nb, d.layoutBindings)
		}
		if mod, err = d.newModule(words); err != nil {
			return nil, fmt.Errorf("vulkan: kind %s: %w", l.Kind, err)
		}
		c.modules[string(k[:mlen])] = mod
	}
	p, err := d.newModulePipeline(mod, l.Entry)
	if err != nil {
		return nil, fmt.Errorf("vulkan: kind %s entry %s: %w", l.Kind, l.Entry, err)
	}
	c.pipes[string(k)] = p
	return p, nil
}

// destroy releases every pipeline and module.
func (c *pipelineCache) destroy(d *Device) {
	for _, p := range c.pipes {
		C.sf_destroy_pipeline(d.c, p.cp)
		if p.module != vk.NullShaderModule {
			vk.DestroyShaderModule(d.dev, p.module, nil)
		}
	}
	for _, m := range c.modules {
		vk.DestroyShaderModule(d.dev, m, nil)
	}
	c.pipes, c.modules = nil, nil
}

// kernelBase is a kind's precompiled module, parsed once per process.
type kernelBase struct {
	once sync.Once
	base *spv.Base
	err  error
}

var kernelBases sync.Map // shaders.Kind -> *kernelBase

// baseOf returns the parsed precompiled module of a kind.
func baseOf(k shaders.Kind) (*spv.Base, error) {
	v, _ := kernelBases.LoadOrStore(k, &kernelBase{})
	kb := v.(*kernelBase)
	kb.once.Do(func() {
		code, err := shaders.SPIRV(k)
		if err != nil {
			kb.err = err
			return
		}
		words, err := spirvWords(code)
		if err != nil {
			kb.err = fmt.Errorf("vulkan: kind %s: %w", k, err)
			return
		}
		if kb.base, err = spv.Parse(words); err != nil {
			kb.err = fmt.Errorf("vulkan: kind %s: %w", k, err)
		}
	})
	return kb.base, kb.err
}

// kernelWords returns the SPIR-V of a launch: its kind's module with the
// launch's fused programs spliced into the hook functions.
func kernelWords(l *gpu.Launch) ([]uint32, error) {
	b, err := baseOf(l.Kind)
	if err != nil {
		return nil, err
	}
	w, err := b.Splice(l.Hooks)
	if err != nil {
		return nil, fmt.Errorf("vulkan: kind %s: %w", l.Kind, err)
	}
	return w, nil
}
