package cpu

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

func TestGatherAllDTypes(t *testing.T) {
	r := newRand(t)
	for _, workers := range []int{1, 3} {
		d := newDevice(t, workers)
		for _, dt := range []device.DType{device.Float32, device.Float16, device.Int32, device.Bool, device.BFloat16} {
			for axis := 0; axis < 3; axis++ {
				srcShape := []int{6, 70, 5}
				src, sv := strided(t, d, r, dt, srcShape, []int{2, 0, 1}, 1)
				idxShape := []int{4, 60, 3}
				idxShape[axis] = 9 // the gathered axis may be longer than Src's
				n := device.NumElements(idxShape)
				iv := make([]float64, n)
				for i := range iv {
					iv[i] = float64(r.IntN(srcShape[axis]))
				}
				index := device.Contiguous(upload(t, d, device.Int32, iv), device.Int32, 0, idxShape)
				out := device.Contiguous(poisoned(t, d, dt, n), dt, 0, idxShape)
				require.NoError(t, d.Gather(&device.GatherKernel{Axis: axis, Src: src, Index: index, Out: out}))
				got := download(t, d, out.Buf, dt, n)
				for p := 0; p < n; p++ {
					pos := unravel(p, idxShape)
					pos[axis] = int(iv[p])
					if sv[src.At(pos)] != got[p] {
						require.Equal(t, sv[src.At(pos)], got[p], "%s axis %d position %d", dt, axis, p)
					}
				}
			}
		}
	}
}

// TestGatherSharedRowIndex gathers along the last axis with one row of
// indices broadcast over the other dimensions (IndexSelect's layout): any
// positions, and each source position repeated r times in order (nearest
// upsampling); over strided sources of every element size, against the
// reference; and an index out of range there is an error naming it.
func TestGatherSharedRowIndex(t *testing.T) {
	r := newRand(t)
	for _, workers := range []int{1, 3} {
		d := newDevice(t, workers)
		for _, dt := range []device.DType{device.Float32, device.Int32, device.Float16, device.Bool, device.Float64} {
			// Rows contiguous, transposed, or contiguous but apart (a
			// narrowed view of wider rows).
			for _, perm := range [][]int{{0, 1, 2}, {2, 0, 1}, nil} {
				for _, pattern := range []string{"any", "repeat2", "repeat3"} {
					var src device.View
					var sv []float64
					if perm != nil {
						src, sv = strided(t, d, r, dt, []int{3, 5, 7}, perm, 1)
					} else {
						src, sv = strided(t, d, r, dt, []int{3, 5, 9}, []int{0, 1, 2}, 1)
						src.Shape = []int{3, 5, 7}
					}
					w := 11
					var iv []float64
					switch pattern {
					case "any":
						for range w {
							iv = append(iv, float64(r.IntN(7)))
						}
					case "repeat2", "repeat3":
						reps := int(pattern[6] - '0')
						for j := range 7 * reps {
							iv = append(iv, float64(j/reps))
						}
						w = len(iv)
					}
					idxShape := []int{2, 4, w} // Src is larger outside the gathered axis
					index := device.View{Buf: upload(t, d, device.Int32, iv), DType: device.Int32, Shape: idxShape, Strides: []int{0, 0, 1}}
					n := device.NumElements(idxShape)
					out := device.Contiguous(poisoned(t, d, dt, n), dt, 0, idxShape)
					require.NoError(t, d.Gather(&device.GatherKernel{Axis: 2, Src: src, Index: index, Out: out}))
					got := download(t, d, out.Buf, dt, n)
					for p := 0; p < n; p++ {
						pos := unravel(p, idxShape)
						pos[2] = int(iv[pos[2]])
						if sv[src.At(pos)] != got[p] {
							require.Equal(t, sv[src.At(pos)], got[p], "%s layout %v %s position %d", dt, perm, pattern, p)
						}
					}
				}
			}
		}
		src := device.Contiguous(upload(t, d, device.Float32, []float64{1, 2, 3, 4, 5, 6}), device.Float32, 0, []int{2, 3})
		index := device.View{Buf: upload(t, d, device.Int32, []float64{0, 3}), DType: device.Int32, Shape: []int{2, 2}, Strides: []int{0, 1}}
		out := device.Contiguous(poisoned(t, d, device.Float32, 4), device.Float32, 0, []int{2, 2})
		err := ran(d, d.Gather(&device.GatherKernel{Axis: 1, Src: src, Index: index, Out: out}))
		require.ErrorContains(t, err, "index 3 at position [0 1] of the index (shape [2 2]) is out of range [0,3)")
	}
}

func TestGatherOutOfRangeIsError(t *testing.T) {
	d := newDevice(t, 0)
	src := device.Contiguous(upload(t, d, device.Float32, []float64{1, 2, 3, 4, 5, 6}), device.Float32, 0, []int{2, 3})
	for _, bad := range []float64{3, -1} {
		index := device.Contiguous(upload(t, d, device.Int32, []float64{0, 2, bad, 1}), device.Int32, 0, []int{2, 2})
		out := device.Contiguous(poisoned(t, d, device.Float32, 4), device.Float32, 0, []int{2, 2})
		err := ran(d, d.Gather(&device.GatherKernel{Axis: 1, Src: src, Index: index, Out: out}))
		require.Error(t, err)
		require.Contains(t, err.Error(), "out of range [0,3)")
		require.Contains(t, err.Error(), "[1 0]")
	}
}

func TestScatterAddMatchesSerialSum(t *testing.T) {
	r := newRand(t)
	for _, workers := range []int{1, 3} {
		d := newDevice(t, workers)
		for axis := 0; axis < 3; axis++ {
			dstShape := []int{5, 40, 6}
			nd := device.NumElements(dstShape)
			dv := randVals(r, nd)
			dst := device.Contiguous(upload(t, d, device.Float32, dv), device.Float32, 0, dstShape)
			idxShape := []int{4, 33, 5}
			idxShape[axis] = 50 // many indices collide
			n := device.NumElements(idxShape)
			iv := make([]float64, n)
			for i := range iv {
				iv[i] = float64(r.IntN(dstShape[axis]))
			}
			// Index stored transposed, Src broadcast along dimension 2.
			index, _ := strided(t, d, r, device.Int32, idxShape, []int{1, 2, 0}, 0)
			ivPhys := make([]float64, n)
			for p := 0; p < n; p++ {
				ivPhys[index.Index(p)] = iv[p]
			}
			require.NoError(t, d.Write(index.Buf, 0, encode(device.Int32, ivPhys)))
			srcB, sv := strided(t, d, r, device.Float32, []int{idxShape[0], idxShape[1], 1}, []int{0, 1, 2}, 2)
			src := device.View{Buf: srcB.Buf, DType: device.Float32, Offset: 2, Shape: idxShape, Strides: []int{srcB.Strides[0], srcB.Strides[1], 0}}
			require.NoError(t, d.Scatter(&device.ScatterKernel{Axis: axis, Dst: dst, Index: index, Src: src}))
			want := make([]float64, nd)
			for i, v := range dv {
				want[i] = float64(float32(v))
			}
			for p := 0; p < n; p++ {
				pos := unravel(p, idxShape)
				pos[axis] = int(iv[p])
				want[dst.At(pos)] += float64(float32(at(sv, src, p)))
			}
			requireClose(t, want, download(t, d, dst.Buf, device.Float32, nd), 1e-5, 1e-5, "scatter add")
		}
	}
}

// TestEmbeddingRows gathers and scatter-adds whole rows, as an embedding
// lookup and its gradient do (a rank-2 index along axis 0 that is the same
// along each row, stored broadcast), with repeated rows, a strided source,
// narrow and wide rows, on one worker and three; the scatter's sums must
// equal the serial sum in row order exactly.
func TestEmbeddingRows(t *testing.T) {
	r := newRand(t)
	for _, workers := range []int{1, 3} {
		d := newDevice(t, workers)
		for _, cols := range []int{5, 40, 128, 300} {
			const rows, vocab = 700, 11
			iv := make([]float64, rows)
			for i := range iv {
				iv[i] = float64(r.IntN(vocab))
			}
			idxBuf := upload(t, d, device.Int32, append([]float64{-5}, iv...))
			index := device.View{Buf: idxBuf, DType: device.Int32, Offset: 1, Shape: []int{rows, cols}, Strides: []int{1, 0}}

			table, tv := strided(t, d, r, device.Float32, []int{vocab, cols}, []int{0, 1}, 3)
			out := device.Contiguous(poisoned(t, d, device.Float32, rows*cols), device.Float32, 0, []int{rows, cols})
			require.NoError(t, d.Gather(&device.GatherKernel{Axis: 0, Src: table, Index: index, Out: out}))
			got := download(t, d, out.Buf, device.Float32, rows*cols)
			for p := range got {
				if tv[table.At([]int{int(iv[p/cols]), p % cols})] != got[p] {
					require.Equal(t, tv[table.At([]int{int(iv[p/cols]), p % cols})], got[p], "lookup %d columns, position %d", cols, p)
				}
			}

			// Src rows cols+2 apart.
			sv := randVals(r, rows*(cols+2))
			src := device.View{Buf: upload(t, d, device.Float32, sv), DType: device.Float32, Shape: []int{rows, cols}, Strides: []int{cols + 2, 1}}
			dv := randVals(r, vocab*cols)
			dst := device.Contiguous(upload(t, d, device.Float32, dv), device.Float32, 0, []int{vocab, cols})
			require.NoError(t, d.Scatter(&device.ScatterKernel{Axis: 0, Dst: dst, Index: index, Src: src}))
			want := make([]float32, vocab*cols)
			for i, v := range dv {
				want[i] = float32(v)
			}
			for i := 0; i < rows; i++ {
				for c := 0; c < cols; c++ {
					want[int(iv[i])*cols+c] += float32(sv[i*(cols+2)+c])
				}
			}
			gotD := download(t, d, dst.Buf, device.Float32, vocab*cols)
			for i, w := range want {
				if float64(w) != gotD[i] {
					require.Equal(t, float64(w), gotD[i], "gradient %d columns, element %d", cols, i)
				}
			}

			bad := device.View{Buf: idxBuf, DType: device.Int32, Shape: []int{rows, cols}, Strides: []int{1, 0}}
			err := ran(d, d.Gather(&device.GatherKernel{Axis: 0, Src: table, Index: bad, Out: out}))
			require.ErrorContains(t, err, "index -5 at position [0 0]")
			err = ran(d, d.Scatter(&device.ScatterKernel{Axis: 0, Dst: dst, Index: bad, Src: src}))
			require.ErrorContains(t, err, "index -5 at position [0 0]")
		}
	}
}

func TestScatterOutOfRangeIsError(t *testing.T) {
	d := newDevice(t, 0)
	dst := device.Contiguous(upload(t, d, device.Float32, make([]float64, 6)), device.Float32, 0, []int{2, 3})
	index := device.Contiguous(upload(t, d, device.Int32, []float64{0, 1, 1, 7}), device.Int32, 0, []int{2, 2})
	src := device.Contiguous(upload(t, d, device.Float32, []float64{1, 1, 1, 1}), device.Float32, 0, []int{2, 2})
	err := ran(d, d.Scatter(&device.ScatterKernel{Axis: 0, Dst: dst, Index: index, Src: src}))
	require.ErrorContains(t, err, "index 7 at position [1 1]")
}

func TestCopyStridedAllSizes(t *testing.T) {
	r := newRand(t)
	for _, workers := range []int{1, 3} {
		d := newDevice(t, workers)
		for _, dt := range []device.DType{device.Float32, device.BFloat16, device.Bool} {
			shape := []int{33, 17, 129}
			n := device.NumElements(shape)
			src, sv := strided(t, d, r, dt, shape, []int{2, 0, 1}, 5)
			// Dst is the middle of a larger buffer along dimension 1, like a concatenation.
			big := []int{33, 40, 129}
			nb := device.NumElements(big)
			dstBuf := poisoned(t, d, dt, nb)
			st := device.ContiguousStrides(big)
			dst := device.View{Buf: dstBuf, DType: dt, Offset: 10 * st[1], Shape: shape, Strides: st}
			require.NoError(t, d.Copy(&device.CopyKernel{Dst: dst, Src: src}))
			got := download(t, d, dstBuf, dt, nb)
			written := make([]bool, nb)
			for p := 0; p < n; p++ {
				if at(sv, src, p) != got[dst.Index(p)] {
					require.Equal(t, at(sv, src, p), got[dst.Index(p)], "%s position %d", dt, p)
				}
				written[dst.Index(p)] = true
			}
			for i, w := range written {
				if !w && dt == device.Bool {
					if 255.0 != got[i] {
						require.Equal(t, 255.0, got[i], "copy wrote outside its view")
					}
				}
			}
		}
	}
	// Rank 0.
	d := newDevice(t, 0)
	s := device.View{Buf: upload(t, d, device.Int32, []float64{7}), DType: device.Int32}
	o := device.View{Buf: poisoned(t, d, device.Int32, 1), DType: device.Int32}
	require.NoError(t, d.Copy(&device.CopyKernel{Dst: o, Src: s}))
	require.Equal(t, []float64{7}, download(t, d, o.Buf, device.Int32, 1))
}

// TestCopyRows copies permuted views whose innermost dimension is
// contiguous (copied row by row) into the middle of a larger buffer, as a
// concatenation of attention heads does, for every element size, on one
// worker and on three (splits inside runs of rows), next to a shape whose
// rows are too short for the row path.
func TestCopyRows(t *testing.T) {
	r := newRand(t)
	for _, workers := range []int{1, 3} {
		d := newDevice(t, workers)
		for _, dt := range []device.DType{device.Float32, device.BFloat16, device.Bool, device.Int64} {
			for _, c := range []struct{ shape, perm []int }{
				{[]int{9, 37, 7, 32}, []int{0, 2, 1, 3}},
				{[]int{70, 9}, []int{0, 1}},
				{[]int{3, 300, minCopyRow - 1}, []int{1, 0, 2}},
				{[]int{4, 6, 2, 3, 17}, []int{3, 0, 2, 1, 4}},
			} {
				src, sv := strided(t, d, r, dt, c.shape, c.perm, 3)
				// Dst is a slice of a buffer twice as wide in dimension 0's
				// stride, at an offset: a part of a concatenation.
				big := append([]int{2}, c.shape...)
				nb := device.NumElements(big)
				dstBuf := poisoned(t, d, dt, nb)
				st := device.ContiguousStrides(big)
				dst := device.View{Buf: dstBuf, DType: dt, Offset: st[0], Shape: c.shape, Strides: st[1:]}
				require.NoError(t, d.Copy(&device.CopyKernel{Dst: dst, Src: src}))
				got := download(t, d, dstBuf, dt, nb)
				n := device.NumElements(c.shape)
				for p := 0; p < n; p++ {
					if at(sv, src, p) != got[dst.Index(p)] {
						require.Equal(t, at(sv, src, p), got[dst.Index(p)], "%s %v position %d", dt, c.shape, p)
					}
				}
				if dt == device.Bool {
					for i := 0; i < st[0]; i++ {
						if 255.0 != got[i] {
							require.Equal(t, 255.0, got[i], "copy wrote outside its view")
						}
					}
				}
			}
		}
	}
}

func TestEmptyShapes(t *testing.T) {
	d := newDevice(t, 0)
	buf := upload(t, d, device.Float32, []float64{1, 2, 3, 4})
	idx := upload(t, d, device.Int32, []float64{0})
	empty := func(dt device.DType, b device.Buffer) device.View {
		return device.View{Buf: b, DType: dt, Shape: []int{2, 0}, Strides: []int{0, 1}}
	}
	require.NoError(t, d.Gather(&device.GatherKernel{Axis: 1, Src: device.Contiguous(buf, device.Float32, 0, []int{2, 2}), Index: empty(device.Int32, idx), Out: empty(device.Float32, buf)}))
	require.NoError(t, d.Copy(&device.CopyKernel{Dst: empty(device.Float32, buf), Src: empty(device.Float32, buf)}))
	require.NoError(t, d.Scatter(&device.ScatterKernel{Axis: 1, Dst: device.Contiguous(buf, device.Float32, 0, []int{2, 2}), Index: empty(device.Int32, idx), Src: empty(device.Float32, buf)}))
	// A weight gradient over an empty batch is zero.
	g := geometry(0, 2, 2, 1, []int{3}, []int{2}, []int{1}, []int{0}, []int{1})
	none := device.View{Buf: buf, DType: device.Float32, Shape: []int{0, 2, 3}, Strides: []int{6, 3, 1}}
	noneY := device.View{Buf: buf, DType: device.Float32, Shape: []int{0, 2, 2}, Strides: []int{4, 2, 1}}
	out := device.Contiguous(poisoned(t, d, device.Float32, 8), device.Float32, 0, []int{2, 2, 2})
	require.NoError(t, d.Conv(&device.ConvKernel{Mode: device.ConvBackwardWeight, Geom: g, A: noneY, B: none, Epilogue: device.Identity(device.Float32), Outputs: []device.View{out}}))
	require.Equal(t, make([]float64, 8), download(t, d, out.Buf, device.Float32, 8))
}
