package cpu

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// TestElementwiseTransposedSources covers large sources stored transposed
// (copied row-major before the kernel runs), float32 and int32, with a
// leading dimension wider than the matrix and an offset, next to a
// broadcast operand, on one and several workers.
func TestElementwiseTransposedSources(t *testing.T) {
	r := newRand(t)
	rows, cols := 130, 257 // > transposeMin elements, ragged tiles
	for _, dt := range []device.DType{device.Float32, device.Int32} {
		for _, workers := range []int{1, 3} {
			d := newDevice(t, workers)
			ld := rows + 5
			raw := randVals(r, 7+ld*cols)
			for i := range raw {
				raw[i] = round(dt, raw[i])
				if dt == device.Int32 {
					raw[i] = float64(int32(raw[i] * 100))
				}
			}
			x := device.View{Buf: upload(t, d, dt, raw), DType: dt, Offset: 7, Shape: []int{rows, cols}, Strides: []int{1, ld}}
			bias, bv := strided(t, d, r, dt, []int{cols}, []int{0}, 0)
			if dt == device.Int32 {
				for i := range bv {
					bv[i] = float64(int32(bv[i]))
				}
			}
			bias.Shape, bias.Strides = []int{rows, cols}, []int{0, 1}
			var b device.Builder
			b.Output(b.Binary(device.OpSub, b.Input(0, dt), b.Input(1, dt)))
			n := rows * cols
			out := device.Contiguous(poisoned(t, d, dt, n), dt, 0, []int{rows, cols})
			require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: []int{rows, cols}, Inputs: []device.View{x, bias}, Program: b.P, Outputs: []device.View{out}}))
			got := download(t, d, out.Buf, dt, n)
			for p := 0; p < n; p++ {
				want := at(raw, x, p) - at(bv, bias, p)
				if dt == device.Float32 {
					want = float64(float32(at(raw, x, p)) - float32(at(bv, bias, p)))
				}
				if want != got[p] {
					require.Equal(t, want, got[p], "%s workers %d at %d", dt, workers, p)
				}
			}
		}
	}
}

// TestElementwiseInPlaceChunks covers plans that need no scratch (every
// register read from an input or written to an output), which run in long
// chunks: lengths around the chunk, several workers, int32 and float32.
func TestElementwiseInPlaceChunks(t *testing.T) {
	r := newRand(t)
	for _, n := range []int{inPlaceChunk - 1, 2*inPlaceChunk + 17} {
		for _, workers := range []int{1, 3} {
			for _, dt := range []device.DType{device.Float32, device.Int32} {
				d := newDevice(t, workers)
				x, xv := strided(t, d, r, dt, []int{n}, []int{0}, 0)
				y, yv := strided(t, d, r, dt, []int{n}, []int{0}, 0)
				var b device.Builder
				s := b.Binary(device.OpMul, b.Input(0, dt), b.Input(1, dt))
				b.Output(s)
				b.Output(b.Unary(device.OpNeg, s))
				o1 := device.Contiguous(poisoned(t, d, dt, n), dt, 0, []int{n})
				o2 := device.Contiguous(poisoned(t, d, dt, n), dt, 0, []int{n})
				p := &plan{}
				p.reset(b.P.Code, []int{n})
				require.NoError(t, d.addViews(p, []device.View{x, y}))
				require.NoError(t, d.addSinks(p, []device.View{o1, o2}, b.P.Outputs))
				p.finish(b.P.Outputs)
				require.Equal(t, inPlaceChunk, p.chunk(), "no scratch: long chunks")
				require.NoError(t, d.Elementwise(&device.ElementwiseKernel{Shape: []int{n}, Inputs: []device.View{x, y}, Program: b.P, Outputs: []device.View{o1, o2}}))
				g1, g2 := download(t, d, o1.Buf, dt, n), download(t, d, o2.Buf, dt, n)
				for i := 0; i < n; i++ {
					want := xv[i] * yv[i]
					if dt == device.Float32 {
						want = float64(float32(xv[i]) * float32(yv[i]))
					} else {
						want = float64(int32(xv[i]) * int32(yv[i]))
					}
					if want != g1[i] {
						require.Equal(t, want, g1[i], "%s n=%d w=%d at %d", dt, n, workers, i)
					}
					if -want != g2[i] {
						require.Equal(t, -want, g2[i], "%s n=%d w=%d at %d", dt, n, workers, i)
					}
				}
			}
		}
	}
}

// transposedViews are large sources stored transposed: a batch of
// transposes, a channels-first tensor permuted to channels-last, a matrix
// broadcast along a batch.
var transposedViews = []struct {
	name           string
	shape, strides []int
	span           int // elements the view reaches from its offset
}{
	{"batch of transposes", []int{3, 130, 57}, []int{135*57 + 11, 1, 135}, 2*(135*57+11) + 135*56 + 130},
	{"NCHW to NHWC", []int{4, 9, 14, 40}, []int{40 * 126, 14, 1, 126}, 4 * 40 * 126},
	{"broadcast batch", []int{2, 3, 140, 50}, []int{0, 150 * 50, 1, 150}, 2*150*50 + 150*49 + 140},
}

// TestElementwiseBatchedTransposedSources covers sources whose last two
// dimensions are a transposed matrix under outer dimensions (a batch of
// transposes, a channels-first tensor permuted to channels-last, a matrix
// broadcast along a batch): the plan copies them row-major, matrix by
// matrix, and the results match the definition, float32 and int32, on one
// and several workers.
func TestElementwiseBatchedTransposedSources(t *testing.T) {
	r := newRand(t)
	for _, c := range transposedViews {
		for _, dt := range []device.DType{device.Float32, device.Int32} {
			for _, workers := range []int{1, 3} {
				d := newDevice(t, workers)
				k, raw := negation(t, d, r, dt, c.shape, c.strides, 5, c.span)
				p := &plan{}
				p.reset(k.Program.Code, c.shape)
				require.NoError(t, d.addViews(p, k.Inputs))
				require.NoError(t, d.addSinks(p, k.Outputs, k.Program.Outputs))
				p.finish(k.Program.Outputs)
				require.Equal(t, srcContiguous, p.srcs[0].kind, "%s: copied row-major", c.name)
				require.NoError(t, d.Elementwise(k))
				n := device.NumElements(c.shape)
				got := download(t, d, k.Outputs[0].Buf, dt, n)
				want := make([]float64, n)
				for q := range want {
					want[q] = -at(raw, k.Inputs[0], q)
				}
				require.Equal(t, want, got, "%s %s workers %d", c.name, dt, workers)
			}
		}
	}
}

// TestTransposingCopies covers copies of transposed views (Copy kernels and
// elementwise kernels that store their input unchanged), which transpose
// tile by tile in parallel: batches, NCHW to NHWC, broadcast batches, a
// destination inside a larger buffer (a part of Cat), several dtypes (only
// 4-byte ones transpose), one and several workers.
func TestTransposingCopies(t *testing.T) {
	r := newRand(t)
	for _, c := range transposedViews {
		for _, dt := range []device.DType{device.Float32, device.Float16} { // 4-byte elements transpose, others copy
			for _, workers := range []int{1, 3} {
				for _, dstPad := range []int{0, 77} { // floats between the destination's matrices (a part of Cat)
					d := newDevice(t, workers)
					neg, raw := negation(t, d, r, dt, c.shape, c.strides, 5, c.span)
					x := neg.Inputs[0]
					nd, n := len(c.shape), device.NumElements(c.shape)
					mat := c.shape[nd-2] * c.shape[nd-1]
					out := device.Contiguous(poisoned(t, d, dt, n/mat*(mat+dstPad)+3), dt, 3, c.shape)
					for i := nd - 3; i >= 0; i-- {
						out.Strides[i] = (mat + dstPad) * n / mat / device.NumElements(c.shape[:i+1])
					}
					k := &device.CopyKernel{Dst: out, Src: x}
					require.Equal(t, dt.Size() == 4, transposing(coalesced(k)), "%s %s transposes", c.name, dt)
					var b device.Builder
					b.Output(b.Input(0, dt))
					ew := &device.ElementwiseKernel{Shape: c.shape, Inputs: []device.View{x}, Program: b.P, Outputs: []device.View{out}}
					runs := map[string]func() error{"copy": func() error { return d.Copy(k) }}
					if dstPad == 0 { // elementwise outputs are contiguous
						runs["elementwise"] = func() error { return d.Elementwise(ew) }
					}
					for name, run := range runs {
						require.NoError(t, run())
						got := download(t, d, out.Buf, dt, n/mat*(mat+dstPad)+3)
						want, stored := make([]float64, n), make([]float64, n)
						for q := range n {
							want[q], stored[q] = at(raw, x, q), got[out.Index(q)]
						}
						require.Equal(t, want, stored, "%s %s %s pad %d workers %d", name, c.name, dt, dstPad, workers)
					}
				}
			}
		}
	}
}

// TestReversingCopies covers copies of flipped views (Copy kernels and
// elementwise kernels that store their input unchanged), which reverse
// each run in one pass: the last axis flipped, both flipped (one run),
// rows shorter than a copied row, elements of 2, 4 and 8 bytes.
func TestReversingCopies(t *testing.T) {
	r := newRand(t)
	for _, c := range []struct {
		name           string
		shape, strides []int
		offset         int
	}{
		{"last axis", []int{37, 301}, []int{301, -1}, 300},
		{"both axes", []int{37, 301}, []int{-301, -1}, 37*301 - 1},
		{"short rows", []int{300, 5}, []int{5, -1}, 4},
	} {
		for _, dt := range []device.DType{device.Float32, device.Float16, device.Float64} {
			for _, workers := range []int{1, 3} {
				d := newDevice(t, workers)
				n := device.NumElements(c.shape)
				neg, raw := negation(t, d, r, dt, c.shape, c.strides, c.offset, n)
				x := neg.Inputs[0]
				out := device.Contiguous(poisoned(t, d, dt, n), dt, 0, c.shape)
				k := &device.CopyKernel{Dst: out, Src: x}
				require.Equal(t, c.shape[1] >= minCopyRow, reversing(coalesced(k)), "%s reverses", c.name)
				var b device.Builder
				b.Output(b.Input(0, dt))
				ew := &device.ElementwiseKernel{Shape: c.shape, Inputs: []device.View{x}, Program: b.P, Outputs: []device.View{out}}
				for name, run := range map[string]func() error{"copy": func() error { return d.Copy(k) }, "elementwise": func() error { return d.Elementwise(ew) }} {
					require.NoError(t, run())
					got := download(t, d, out.Buf, dt, n)
					want := make([]float64, n)
					for q := range want {
						want[q] = at(raw, x, q)
					}
					require.Equal(t, want, got, "%s %s %s workers %d", name, c.name, dt, workers)
				}
			}
		}
	}
}
