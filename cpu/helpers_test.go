package cpu

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// newRand returns a generator seeded from $SHADERFLOW_SEED or the clock,
// whose seed is logged if the test fails.
func newRand(t testing.TB) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SHADERFLOW_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SHADERFLOW_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("random seed %d (repeat with SHADERFLOW_SEED=%d)", seed, seed)
		}
	})
	return rand.New(rand.NewPCG(seed, 0x5eed))
}

// newDevice opens a device with the given number of workers (0: GOMAXPROCS).
func newDevice(t testing.TB, workers int) *Device {
	d := New(Config{Workers: workers})
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// randVals returns n uniform values in [-2, 2).
func randVals(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.Float64()*4 - 2
	}
	return v
}

// upload stores vals as dt in a new buffer (float values are rounded to dt).
func upload(t testing.TB, d *Device, dt device.DType, vals []float64) device.Buffer {
	b, err := d.Alloc(int64(len(vals) * dt.Size()))
	require.NoError(t, err)
	require.NoError(t, d.Write(b, 0, encode(dt, vals)))
	return b
}

// encode converts vals to dt's bytes.
func encode(dt device.DType, vals []float64) []byte {
	out := make([]byte, len(vals)*dt.Size())
	for i, v := range vals {
		switch dt {
		case device.Float32:
			putU32(out[4*i:], math.Float32bits(float32(v)))
		case device.Int32:
			putU32(out[4*i:], uint32(int32(v)))
		case device.Float16:
			putU16(out[2*i:], device.Float32ToFloat16(float32(v)))
		case device.BFloat16:
			putU16(out[2*i:], device.Float32ToBFloat16(float32(v)))
		case device.Bool:
			if v != 0 {
				out[i] = 1
			}
		case device.Float64:
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(v))
		case device.Int64:
			binary.LittleEndian.PutUint64(out[8*i:], uint64(int64(v)))
		}
	}
	return out
}

// download reads n elements of dt from b as float64.
func download(t testing.TB, d *Device, b device.Buffer, dt device.DType, n int) []float64 {
	raw := make([]byte, n*dt.Size())
	require.NoError(t, d.Read(b, 0, raw))
	out := make([]float64, n)
	for i := range out {
		switch dt {
		case device.Float32:
			out[i] = float64(math.Float32frombits(getU32(raw[4*i:])))
		case device.Int32:
			out[i] = float64(int32(getU32(raw[4*i:])))
		case device.Float16:
			out[i] = float64(device.Float16ToFloat32(getU16(raw[2*i:])))
		case device.BFloat16:
			out[i] = float64(device.BFloat16ToFloat32(getU16(raw[2*i:])))
		case device.Bool:
			out[i] = float64(raw[i])
		case device.Float64:
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		case device.Int64:
			out[i] = float64(int64(binary.LittleEndian.Uint64(raw[8*i:])))
		}
	}
	return out
}

// poisoned allocates an output of n dt elements filled with 0xff bytes (NaN
// for floats, -1 for int32, 255 for bool) so unwritten elements show.
func poisoned(t testing.TB, d *Device, dt device.DType, n int) device.Buffer {
	b, err := d.Alloc(int64(n * dt.Size()))
	require.NoError(t, err)
	p := make([]byte, n*dt.Size())
	for i := range p {
		p[i] = 0xff
	}
	require.NoError(t, d.Write(b, 0, p))
	return b
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
func putU16(b []byte, v uint16) { b[0], b[1] = byte(v), byte(v>>8) }
func getU32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func getU16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }

// round rounds v to what dt can hold, as a store would.
func round(dt device.DType, v float64) float64 {
	switch dt {
	case device.Float32:
		return float64(float32(v))
	case device.Float16:
		return float64(device.Float16ToFloat32(device.Float32ToFloat16(float32(v))))
	case device.BFloat16:
		return float64(device.BFloat16ToFloat32(device.Float32ToBFloat16(float32(v))))
	}
	return v
}

// at returns the element of vals (a buffer's contents) that view v holds at
// row-major position p.
func at(vals []float64, v device.View, p int) float64 { return vals[v.Index(p)] }

// requireClose checks got against want elementwise within atol + rtol*|want|,
// treating NaNs as equal and infinities as exact.
func requireClose(t testing.TB, want, got []float64, atol, rtol float64, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(got), msg)
	for i := range want {
		w, g := want[i], got[i]
		ok := math.Abs(w-g) <= atol+rtol*math.Abs(w)
		switch {
		case math.IsNaN(w) || math.IsNaN(g):
			ok = math.IsNaN(w) && math.IsNaN(g)
		case math.IsInf(w, 0):
			ok = w == g
		}
		if !ok {
			require.Failf(t, "mismatch", "%s: element %d: want %v, got %v (atol %g, rtol %g)", msg, i, w, g, atol, rtol)
		}
	}
}

// permutedStrides returns the strides of shape over a contiguous buffer
// that holds its dimensions in the order perm.
func permutedStrides(shape, perm []int) []int {
	phys := make([]int, len(shape))
	for i, p := range perm {
		phys[i] = shape[p]
	}
	pst := device.ContiguousStrides(phys)
	st := make([]int, len(shape))
	for i, p := range perm {
		st[p] = pst[i]
	}
	return st
}

// strided returns a view of shape over a fresh buffer laid out with the
// dimensions in the order perm (a transposed layout), plus an offset, and
// the buffer's contents.
func strided(t testing.TB, d *Device, r *rand.Rand, dt device.DType, shape, perm []int, offset int) (device.View, []float64) {
	st := permutedStrides(shape, perm)
	n := device.NumElements(shape) + offset
	vals := randVals(r, n)
	for i := range vals {
		vals[i] = round(dt, vals[i])
		if dt == device.Int32 || dt == device.Int64 {
			vals[i] = math.Floor(vals[i] * 10)
		}
		if dt == device.Bool {
			vals[i] = float64(r.IntN(2))
		}
	}
	return device.View{Buf: upload(t, d, dt, vals), DType: dt, Offset: offset, Shape: shape, Strides: st}, vals
}

// biasRelu is the epilogue relu(acc + bias) of a product or convolution:
// input 0 its result, input 1 the bias (broadcast by its view).
func biasRelu() device.Program {
	var e device.Builder
	e.Output(e.Unary(device.OpRelu, e.Binary(device.OpAdd, e.Input(0, device.Float32), e.Input(1, device.Float32))))
	return e.P
}

// negation returns an elementwise kernel writing -x into a poisoned
// contiguous output, x the view (shape, strides, offset) over span+offset
// random values of dt (Int32 ones integral), and those values.
func negation(t testing.TB, d *Device, r *rand.Rand, dt device.DType, shape, strides []int, offset, span int) (*device.ElementwiseKernel, []float64) {
	raw := randVals(r, offset+span)
	for i := range raw {
		raw[i] = round(dt, raw[i])
		if dt == device.Int32 {
			raw[i] = float64(int32(raw[i] * 100))
		}
	}
	x := device.View{Buf: upload(t, d, dt, raw), DType: dt, Offset: offset, Shape: shape, Strides: strides}
	var b device.Builder
	b.Output(b.Unary(device.OpNeg, b.Input(0, dt)))
	out := device.Contiguous(poisoned(t, d, dt, device.NumElements(shape)), dt, 0, shape)
	return &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{x}, Program: b.P, Outputs: []device.View{out}}, raw
}

// ran returns err, or when it is nil what the kernel hit while running:
// kernels run on the device's goroutine after their calls return (stream).
func ran(d *Device, err error) error {
	if err != nil {
		return err
	}
	return d.Sync()
}
