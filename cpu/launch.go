package cpu

import (
	"time"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// launch validates k on the caller's goroutine, so that a malformed kernel
// is refused by the call, and then runs it: at once on a synchronous device,
// else a copy of it on the device's stream (see stream), returning before it
// ran. run is the kernel's method that computes it; name names the kernel
// in the profiler's device times.
func launch[K any](d *Device, name string, k *K, validate func(*K) error, clone func(*K) *K, run func(*K) error) error {
	if d.closed.Load() {
		return device.ErrClosed
	}
	if err := validate(k); err != nil {
		return err
	}
	if d.synchronous {
		return d.timed(name, func() error { return run(k) })()
	}
	c := clone(k)
	d.stream.submit(d.timed(name, func() error { return run(c) }))
	return nil
}

// timed counts a kernel call and returns f, wrapped to record its time when
// profiling is on (see SetProfiling).
func (d *Device) timed(name string, f func() error) func() error {
	call := d.calls.Add(1)
	if !d.profiling.Load() {
		return f
	}
	return func() error {
		start := time.Now()
		err := f()
		t := device.KernelTime{Call: call, Name: name, Start: start, Duration: time.Since(start)}
		d.timesMu.Lock()
		d.times = append(d.times, t)
		d.timesMu.Unlock()
		return err
	}
}

// SetProfiling turns timing of later kernels on or off.
func (d *Device) SetProfiling(on bool) { d.profiling.Store(on) }

// KernelCalls returns how many kernel calls the device has accepted since it
// opened.
func (d *Device) KernelCalls() uint64 { return d.calls.Load() }

// KernelTimes returns the times of the timed kernels that finished since the
// previous call, in execution order, and forgets them.
func (d *Device) KernelTimes() []device.KernelTime {
	d.timesMu.Lock()
	defer d.timesMu.Unlock()
	t := d.times
	d.times = nil
	return t
}

// Elementwise runs a fused elementwise program.
func (d *Device) Elementwise(k *device.ElementwiseKernel) error {
	return launch(d, "elementwise", k, (*device.ElementwiseKernel).Validate, (*device.ElementwiseKernel).Clone, d.elementwiseNow)
}

// Reduce runs a reduction with prologue and epilogue.
func (d *Device) Reduce(k *device.ReduceKernel) error {
	return launch(d, "reduce", k, (*device.ReduceKernel).Validate, (*device.ReduceKernel).Clone, d.reduceNow)
}

// MatMul runs a batched matrix product with epilogue.
func (d *Device) MatMul(k *device.MatMulKernel) error {
	return launch(d, "matmul", k, (*device.MatMulKernel).Validate, (*device.MatMulKernel).Clone, d.matMulNow)
}

// Conv runs a convolution (forward or backward) with epilogue.
func (d *Device) Conv(k *device.ConvKernel) error {
	return launch(d, "conv", k, (*device.ConvKernel).Validate, (*device.ConvKernel).Clone, d.convNow)
}

// Pool runs max or average pooling, forward or backward.
func (d *Device) Pool(k *device.PoolKernel) error {
	return launch(d, "pool", k, (*device.PoolKernel).Validate, (*device.PoolKernel).Clone, d.poolNow)
}

// Gather runs torch.gather; an index out of range is an error.
func (d *Device) Gather(k *device.GatherKernel) error {
	return launch(d, "gather", k, (*device.GatherKernel).Validate, (*device.GatherKernel).Clone, d.gatherNow)
}

// Scatter runs torch.scatter_add_ in place.
func (d *Device) Scatter(k *device.ScatterKernel) error {
	return launch(d, "scatter", k, (*device.ScatterKernel).Validate, (*device.ScatterKernel).Clone, d.scatterNow)
}

// Copy runs a copy of one view into another of the same shape and dtype.
func (d *Device) Copy(k *device.CopyKernel) error {
	return launch(d, "copy", k, (*device.CopyKernel).Validate, (*device.CopyKernel).Clone, d.copyNow)
}

// Softmax runs a softmax or log-softmax over rows.
func (d *Device) Softmax(k *device.SoftmaxKernel) error {
	return launch(d, "softmax", k, (*device.SoftmaxKernel).Validate, (*device.SoftmaxKernel).Clone, d.softmaxNow)
}

// SoftmaxBackward runs the gradient of a softmax or log-softmax over rows.
func (d *Device) SoftmaxBackward(k *device.SoftmaxBackwardKernel) error {
	return launch(d, "softmax_backward", k, (*device.SoftmaxBackwardKernel).Validate, (*device.SoftmaxBackwardKernel).Clone, d.softmaxBackwardNow)
}

// Normalize runs a normalization of rows to zero mean and unit variance.
func (d *Device) Normalize(k *device.NormalizeKernel) error {
	return launch(d, "normalize", k, (*device.NormalizeKernel).Validate, (*device.NormalizeKernel).Clone, d.normalizeNow)
}

// NormalizeBackward runs the gradient of a normalization of rows.
func (d *Device) NormalizeBackward(k *device.NormalizeBackwardKernel) error {
	return launch(d, "normalize_backward", k, (*device.NormalizeBackwardKernel).Validate, (*device.NormalizeBackwardKernel).Clone, d.normalizeBackwardNow)
}

// Attention runs scaled dot-product attention.
func (d *Device) Attention(k *device.AttentionKernel) error {
	return launch(d, "attention", k, (*device.AttentionKernel).Validate, (*device.AttentionKernel).Clone, d.attentionNow)
}

// AttentionBackward runs the gradients of scaled dot-product attention.
func (d *Device) AttentionBackward(k *device.AttentionBackwardKernel) error {
	return launch(d, "attention_backward", k, (*device.AttentionBackwardKernel).Validate, (*device.AttentionBackwardKernel).Clone, d.attentionBackwardNow)
}

// Sort runs the positions that sort each line.
func (d *Device) Sort(k *device.SortKernel) error {
	return launch(d, "sort", k, (*device.SortKernel).Validate, (*device.SortKernel).Clone, d.sortNow)
}

// Cumsum runs the running sums of each line.
func (d *Device) Cumsum(k *device.CumsumKernel) error {
	return launch(d, "cumsum", k, (*device.CumsumKernel).Validate, (*device.CumsumKernel).Clone, d.cumsumNow)
}
