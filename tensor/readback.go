package tensor

import (
	"encoding/binary"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Realize computes the tensor now (fusing what it can), so that later reads
// and consumers reuse the result. It waits for the kernels it launched and
// returns their runtime failures (such as an index out of range) on every
// backend; a failed tensor's later reads fail too.
func (t *Tensor) Realize() error { return t.compute("Realize", true) }

// Launch starts computing the tensor as Realize does but returns without
// waiting for the kernels, so that the caller records the next operations
// while they run (on a GPU, and on the CPU backend's goroutine). Errors
// found before a kernel runs (out of memory) are returned by Launch; an
// error a kernel hits while running (an index out of range) is returned by
// the next Realize, read or Sync, and every value launched since the wait
// before it fails with that error.
func (t *Tensor) Launch() error { return t.compute("Launch", false) }

// compute realizes the tensor, waiting for its kernels when wait is set.
func (t *Tensor) compute(op string, wait bool) error {
	t.check(op)
	d := t.n.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	d.maybeReclaim()
	t.check(op) // a Scope on another goroutine may have released it meanwhile
	if err := d.realize(t.n); err != nil {
		return err
	}
	if !wait {
		return nil
	}
	return d.settle(t.n)
}

// Realize computes several tensors now. Elementwise results of one shape on
// one device are computed by a single kernel with several outputs (an
// optimizer's parameter and moment updates, for instance), sharing the work
// they have in common.
func Realize(ts ...*Tensor) error { return computeAll("Realize", ts, true) }

// Launch starts computing several tensors as Realize does, without waiting
// for the kernels (see Tensor.Launch).
func Launch(ts ...*Tensor) error { return computeAll("Launch", ts, false) }

// computeAll realizes ts device by device, waiting for the kernels when
// wait is set.
func computeAll(op string, ts []*Tensor, wait bool) error {
	for len(ts) > 0 {
		d := ts[0].Device()
		var same, rest []*Tensor
		for _, t := range ts {
			t.check(op)
			if t.Device() == d {
				same = append(same, t)
			} else {
				rest = append(rest, t)
			}
		}
		if err := d.realizeMany(same, wait); err != nil {
			return err
		}
		ts = rest
	}
	return nil
}

// Bytes realizes the tensor and returns its elements, row-major, as
// little-endian bytes of its dtype.
func (t *Tensor) Bytes() ([]byte, error) {
	var out []byte
	err := t.read("Bytes", func(n int) []byte {
		out = make([]byte, n)
		return out
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// read realizes the tensor and copies its elements, row-major, into the
// slice that alloc returns for their byte count. alloc runs only once the
// elements are in one device buffer, so a result the device cannot hold is
// refused with the device's out-of-memory error before any host memory of
// its size is taken.
func (t *Tensor) read(op string, alloc func(nbytes int) []byte) error {
	t.check(op)
	d := t.n.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	d.maybeReclaim()
	t.check(op) // a Scope on another goroutine may have released it meanwhile
	if err := d.realize(t.n); err != nil {
		return err
	}
	if err := t.readInto(alloc); err != nil {
		d.fail(t.n, err)
		return err
	}
	return nil
}

// readInto copies the realized tensor's elements into the slice alloc
// returns (see read). The caller holds d.mu.
func (t *Tensor) readInto(alloc func(nbytes int) []byte) error {
	d := t.n.dev
	dt := t.n.dtype
	nbytes := t.NumElements() * dt.Size() // checkShape bounds the product
	if nbytes == 0 {
		alloc(0)
		return nil
	}
	if t.IsContiguous() {
		return d.readBlock(t.n.block.Buf, int64(t.offset*dt.Size()), alloc(nbytes))
	}
	// Gather the view into a temporary contiguous buffer first.
	blk, err := d.alloc(dt, t.NumElements())
	if err != nil {
		return err
	}
	defer d.pool.Free(blk)
	k := device.CopyKernel{
		Dst: device.Contiguous(blk.Buf, dt, 0, t.shape),
		Src: t.n.deviceView(t.view()),
	}
	if err := d.launch("copy", "copy", []string{"gather-view"}, 1, 1, func() error { return d.raw.Copy(&k) }); err != nil {
		return err
	}
	return d.readBlock(blk.Buf, 0, alloc(nbytes))
}

// readBlock reads bytes of a buffer after the pending kernels. An error may
// be a kernel's that ran since the last wait, so it fails their generation
// (see settle.go). The caller holds d.mu.
func (d *Device) readBlock(b device.Buffer, off int64, dst []byte) error {
	err := d.raw.Read(b, off, dst)
	if err != nil {
		d.endGeneration(err)
	}
	return err
}

// Float32s realizes the tensor and returns its elements as float32
// (converting from its dtype).
func (t *Tensor) Float32s() ([]float32, error) {
	t.check("Float32s")
	if t.DType() == Float32 {
		var out []float32
		err := t.read("Float32s", func(n int) []byte {
			out = make([]float32, n/4)
			return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), n)
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	raw, err := t.Bytes()
	if err != nil {
		return nil, err
	}
	n := t.NumElements()
	out := make([]float32, n)
	switch t.n.dtype {
	case Float16:
		for i := range out {
			out[i] = device.Float16ToFloat32(binary.LittleEndian.Uint16(raw[2*i:]))
		}
	case BFloat16:
		for i := range out {
			out[i] = device.BFloat16ToFloat32(binary.LittleEndian.Uint16(raw[2*i:]))
		}
	case Int32:
		for i := range out {
			out[i] = float32(int32(binary.LittleEndian.Uint32(raw[4*i:])))
		}
	case Int64:
		for i := range out {
			out[i] = float32(int64(binary.LittleEndian.Uint64(raw[8*i:]))) // one rounding
		}
	default: // Bool, Float64, Uint8, Int8
		for i := range out {
			out[i] = float32(hostFloat64(raw, t.n.dtype, i))
		}
	}
	return out, nil
}

// Int32s realizes the tensor and returns its elements as int32 (floats
// truncate toward zero).
func (t *Tensor) Int32s() ([]int32, error) {
	t.check("Int32s")
	if t.DType() == Int32 {
		raw, err := t.Bytes()
		if err != nil {
			return nil, err
		}
		out := make([]int32, len(raw)/4)
		for i := range out {
			out[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		return out, nil
	}
	if dt := t.DType(); dt == Float64 || !dt.IsFloat() {
		v, err := t.Int64s() // integers exactly
		if err != nil {
			return nil, err
		}
		out := make([]int32, len(v))
		for i, x := range v {
			out[i] = int32(x) // wraps, as Cast(Int32) of an Int64 does
			if dt == Float64 {
				out[i] = device.Float64ToInt32(float64(x))
			}
		}
		return out, nil
	}
	f, err := t.Float32s()
	if err != nil {
		return nil, err
	}
	out := make([]int32, len(f))
	for i, v := range f {
		out[i] = device.FloatToInt32(v)
	}
	return out, nil
}

// Bools realizes the tensor and returns whether each element is nonzero.
func (t *Tensor) Bools() ([]bool, error) {
	t.check("Bools")
	f, err := t.Float32s()
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(f))
	for i, v := range f {
		out[i] = v != 0
	}
	return out, nil
}

// Item returns the single element of a one-element tensor; integer and
// Float64 elements are returned exactly (Int64 within 2^53).
func (t *Tensor) Item() (float64, error) {
	t.check("Item")
	if t.NumElements() != 1 {
		usage("Item", "tensor %v has %d elements, not one", t.shape, t.NumElements())
	}
	if dt := t.DType(); dt == Float64 || !dt.IsFloat() {
		v, err := t.Float64s() // exact, and Int64 within 2^53
		if err != nil {
			return 0, err
		}
		return v[0], nil
	}
	f, err := t.Float32s()
	if err != nil {
		return 0, err
	}
	return float64(f[0]), nil
}
