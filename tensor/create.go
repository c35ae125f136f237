package tensor

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// fromBytes records a data node holding raw little-endian bytes. Host data
// is copied to the device now; an allocation or write failure panics with a
// clear message (like make on exhausted memory) — use FromBytes for an error.
func fromBytes(op string, d *Device, dt DType, raw []byte, shape []int) *Tensor {
	t, err := FromBytes(d, dt, raw, shape...)
	if err != nil {
		panic(&UsageError{Op: op, Msg: err.Error()})
	}
	return t
}

// FromBytes makes a tensor from little-endian element bytes, returning an
// error when the device cannot hold it.
func FromBytes(d *Device, dt DType, raw []byte, shape ...int) (*Tensor, error) {
	shape = checkShape("FromBytes", shape)
	n := device.NumElements(shape)
	if len(raw) != n*dt.Size() {
		usage("FromBytes", "%d bytes for shape %v of %s (need %d)", len(raw), shape, dt, n*dt.Size())
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, device.ErrClosed
	}
	if err := d.dtypeError(dt); err != nil {
		return nil, err
	}
	d.maybeReclaim()
	blk, err := d.alloc(dt, n)
	if err != nil {
		return nil, err
	}
	if len(raw) > 0 {
		if err := d.raw.Write(blk.Buf, 0, raw); err != nil {
			d.pool.Free(blk)
			return nil, err
		}
	}
	nd := d.newNode(kindData, dt, shape, nil)
	nd.block = blk
	return whole(nd), nil
}

// FromFloat32s makes a Float32 tensor of shape from data (copied); with no
// shape it is 1-D.
func FromFloat32s(d *Device, data []float32, shape ...int) *Tensor {
	if shape == nil {
		shape = []int{len(data)}
	}
	checkCount("FromFloat32s", len(data), shape)
	return fromBytes("FromFloat32s", d, Float32, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), 4*len(data)), shape)
}

// FromInt32s makes an Int32 tensor of shape from data (copied).
func FromInt32s(d *Device, data []int32, shape ...int) *Tensor {
	if shape == nil {
		shape = []int{len(data)}
	}
	checkCount("FromInt32s", len(data), shape)
	return fromBytes("FromInt32s", d, Int32, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), 4*len(data)), shape)
}

// FromBools makes a Bool tensor of shape from data (copied).
func FromBools(d *Device, data []bool, shape ...int) *Tensor {
	if shape == nil {
		shape = []int{len(data)}
	}
	checkCount("FromBools", len(data), shape)
	raw := make([]byte, len(data))
	for i, b := range data {
		if b {
			raw[i] = 1
		}
	}
	return fromBytes("FromBools", d, Bool, raw, shape)
}

// FromFloat32sAs makes a tensor of float type dt (Float16, BFloat16 or
// Float32) from float32 data, rounding to nearest even.
func FromFloat32sAs(d *Device, dt DType, data []float32, shape ...int) *Tensor {
	if shape == nil {
		shape = []int{len(data)}
	}
	checkCount("FromFloat32sAs", len(data), shape)
	switch dt {
	case Float32:
		return FromFloat32s(d, data, shape...)
	case Float16, BFloat16:
		raw := make([]byte, 2*len(data))
		for i, f := range data {
			h := device.Float32ToFloat16(f)
			if dt == BFloat16 {
				h = device.Float32ToBFloat16(f)
			}
			binary.LittleEndian.PutUint16(raw[2*i:], h)
		}
		return fromBytes("FromFloat32sAs", d, dt, raw, shape)
	}
	usage("FromFloat32sAs", "%s is not a float type", dt)
	return nil
}

func checkCount(op string, n int, shape []int) {
	checkShape(op, shape)
	if device.NumElements(shape) != n {
		usage(op, "%d values for shape %v", n, shape)
	}
}

// Full returns a tensor of shape filled with v (Float32). It is a broadcast
// constant: it costs no memory and fuses into its consumers.
func Full(d *Device, v float64, shape ...int) *Tensor {
	return FullOf(d, Float32, v, shape...)
}

// FullOf is Full with an element type.
func FullOf(d *Device, dt DType, v float64, shape ...int) *Tensor {
	return constant(d, v, dt, checkShape("Full", shape))
}

// Zeros returns a Float32 tensor of zeros.
func Zeros(d *Device, shape ...int) *Tensor { return Full(d, 0, shape...) }

// Ones returns a Float32 tensor of ones.
func Ones(d *Device, shape ...int) *Tensor { return Full(d, 1, shape...) }

// ZerosLike returns zeros of t's shape and type.
func ZerosLike(t *Tensor) *Tensor { return FullOf(t.Device(), t.DType(), 0, t.shape...) }

// OnesLike returns ones of t's shape and type.
func OnesLike(t *Tensor) *Tensor { return FullOf(t.Device(), t.DType(), 1, t.shape...) }

// Arange returns start, start+step, ... below stop as Float32.
func Arange(d *Device, start, stop, step float64) *Tensor {
	if step == 0 || math.IsNaN(start+stop+step) {
		usage("Arange", "bad range start=%g stop=%g step=%g", start, stop, step)
	}
	count := math.Ceil((stop - start) / step)
	if !(count <= MaxElements) { // also refuses NaN and the infinities
		usage("Arange", "range start=%g stop=%g step=%g has more than %d elements", start, stop, step, MaxElements)
	}
	n := max(int(count), 0)
	d.mu.Lock()
	idx := d.newNode(kindElementwise, Int32, []int{n}, nil)
	idx.op = device.OpIndex
	idx.argType = Int32
	it := whole(idx)
	d.mu.Unlock()
	return it.Cast(Float32).MulScalar(step).AddScalar(start)
}

// Rand returns uniform [0,1) Float32 numbers from the device's generator.
func Rand(d *Device, shape ...int) *Tensor { return random(d, device.OpRandUniform, shape, 0) }

// Randn returns standard normal Float32 numbers from the device's generator.
// One seed gives the same numbers on one backend; across backends they agree
// within device.NormalTolerance (GPU transcendentals differ in the last bits),
// while Rand's agree exactly.
func Randn(d *Device, shape ...int) *Tensor { return random(d, device.OpRandNormal, shape, 0) }

// random records a random node; seed 0 draws from the device's stream.
func random(d *Device, op device.Op, shape []int, seed uint64) *Tensor {
	shape = checkShape("Rand", shape)
	d.mu.Lock()
	defer d.mu.Unlock()
	if seed == 0 {
		seed = d.nextSeed()
	}
	n := d.newNode(kindElementwise, Float32, shape, nil)
	n.op = op
	n.seed = seed
	n.argType = Float32
	return whole(n)
}

// Generator is a seeded source of random tensors independent of the device's
// default stream.
type Generator struct{ state uint64 }

// NewGenerator returns a generator seeded with seed.
func NewGenerator(seed uint64) *Generator { return &Generator{state: seed} }

func (g *Generator) next() uint64 {
	g.state += 0x9e3779b97f4a7c15
	z := g.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Rand returns uniform [0,1) numbers.
func (g *Generator) Rand(d *Device, shape ...int) *Tensor {
	return g.random(d, device.OpRandUniform, shape)
}

// Randn returns standard normal numbers.
func (g *Generator) Randn(d *Device, shape ...int) *Tensor {
	return g.random(d, device.OpRandNormal, shape)
}

func (g *Generator) random(d *Device, op device.Op, shape []int) *Tensor {
	return random(d, op, shape, g.next()|1)
}
