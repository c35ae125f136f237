//go:build cgo

package webgpu

import (
	"encoding/binary"
	"fmt"

	"github.com/rajveermalviya/go-webgpu/wgpu"
	"github.com/shaderflow/shaderflow/gpu"
)

// Launches are recorded into one command encoder and one compute pass and
// submitted together (a batch) when a result is read, when the batch is
// large, or before a queue write. All launches of a batch take their params
// from one buffer, each at its own aligned offset passed as the dynamic
// offset of binding 0.
const (
	paramsArenaBytes  = 1 << 20 // params of one batch
	paramsWindowBytes = 64 << 10
	paramsBufferBytes = paramsArenaBytes + paramsWindowBytes
	maxBatchLaunches  = 1024
)

type batch struct {
	d         *Device
	paramsBuf *wgpu.Buffer
	params    []byte
	enc       *wgpu.CommandEncoder
	pass      *wgpu.ComputePassEncoder
	launches  int
	offsets   [1]uint32
}

func (b *batch) init(d *Device) error {
	b.d = d
	pb, err := d.createBuffer("params", paramsBufferBytes, wgpu.BufferUsage_Storage|wgpu.BufferUsage_CopyDst)
	if err != nil {
		return err
	}
	b.paramsBuf = pb
	b.params = make([]byte, 0, paramsArenaBytes)
	return nil
}

// encoder returns the open command encoder, outside any compute pass.
func (b *batch) encoder() (*wgpu.CommandEncoder, error) {
	if err := b.endPass(); err != nil {
		return nil, err
	}
	if b.enc == nil {
		enc, err := b.d.dev.CreateCommandEncoder(nil)
		if err != nil {
			return nil, fmt.Errorf("webgpu: %v", err)
		}
		b.enc = enc
	}
	return b.enc, nil
}

// computePass returns the open compute pass.
func (b *batch) computePass() (*wgpu.ComputePassEncoder, error) {
	if b.pass != nil {
		return b.pass, nil
	}
	enc, err := b.encoder()
	if err != nil {
		return nil, err
	}
	b.pass = enc.BeginComputePass(nil)
	return b.pass, nil
}

func (b *batch) endPass() error {
	if b.pass == nil {
		return nil
	}
	err := b.pass.End()
	b.pass.Release()
	b.pass = nil
	if err != nil {
		return fmt.Errorf("webgpu: %v", err)
	}
	return nil
}

// addParams places a launch's params in the arena and returns their byte
// offset, or ok=false when the arena is full.
func (b *batch) addParams(words []uint32, align int) (off uint32, ok bool) {
	o := (len(b.params) + align - 1) &^ (align - 1)
	if o+4*len(words) > paramsArenaBytes {
		return 0, false
	}
	for len(b.params) < o {
		b.params = append(b.params, 0)
	}
	for _, w := range words {
		b.params = binary.LittleEndian.AppendUint32(b.params, w)
	}
	return uint32(o), true
}

// flush submits the recorded work without waiting for it.
func (d *Device) flush() error {
	b := &d.batch
	if b.enc == nil {
		return nil
	}
	err := b.endPass()
	cb, ferr := b.enc.Finish(nil)
	b.enc.Release()
	b.enc = nil
	if err == nil && ferr != nil {
		err = fmt.Errorf("webgpu: %v", ferr)
	}
	if err == nil && len(b.params) > 0 {
		if werr := d.queue.WriteBuffer(b.paramsBuf, 0, b.params); werr != nil {
			err = fmt.Errorf("webgpu: %v", werr)
		}
	}
	b.params = b.params[:0]
	b.launches = 0
	if cb == nil {
		return err
	}
	if err == nil {
		d.queue.Submit(cb)
	}
	cb.Release()
	if err != nil {
		return err
	}
	return d.noteError(d.uncap.take())
}

// discard drops recorded work that was never submitted.
func (b *batch) discard() {
	if b.pass != nil {
		_ = b.pass.End()
		b.pass.Release()
		b.pass = nil
	}
	if b.enc != nil {
		b.enc.Release()
		b.enc = nil
	}
	b.params = b.params[:0]
	b.launches = 0
}

func (b *batch) release() {
	if b.paramsBuf != nil {
		b.paramsBuf.Destroy()
		b.paramsBuf.Release()
		b.paramsBuf = nil
	}
}

// record validates a launch's buffers and records its dispatch.
func (d *Device) record(l *gpu.Launch) error {
	if l.Workgroups == 0 {
		return nil
	}
	if 4*len(l.Params) > paramsWindowBytes {
		return fmt.Errorf("webgpu: %s kernel needs %d bytes of parameters, more than %d", l.Kind, 4*len(l.Params), paramsWindowBytes)
	}
	bufs := make([]*buffer, len(l.Bindings))
	for i, bd := range l.Bindings {
		b, err := d.own(bd.Buf)
		if err != nil {
			return fmt.Errorf("webgpu: %s kernel: %w", l.Kind, err)
		}
		bufs[i] = b
	}
	pipe, err := d.pipes.get(d, l)
	if err != nil {
		return err
	}
	bg, err := d.groups.get(d, l.Bindings, bufs)
	if err != nil {
		return err
	}
	off, ok := d.batch.addParams(l.Params, int(d.target.BindingAlign))
	if !ok {
		if err := d.flush(); err != nil {
			return err
		}
		off, _ = d.batch.addParams(l.Params, int(d.target.BindingAlign))
	}
	pass, err := d.batch.computePass()
	if err != nil {
		return err
	}
	x, y := gpu.Grid(l.Workgroups, d.target.MaxWorkgroups)
	pass.SetPipeline(pipe)
	d.batch.offsets[0] = off
	pass.SetBindGroup(0, bg, d.batch.offsets[:])
	pass.DispatchWorkgroups(uint32(x), uint32(y), 1)
	d.batch.launches++
	if d.batch.launches >= maxBatchLaunches {
		return d.flush()
	}
	return nil
}
