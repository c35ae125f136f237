package cpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLayout(t *testing.T) {
	cases := []struct {
		rows, cols, sr, sc int
		trans              bool
		ld                 int
		ok                 bool
	}{
		{4, 5, 5, 1, false, 5, true},   // row-major
		{4, 5, 9, 1, false, 9, true},   // row-major, padded rows
		{4, 5, 1, 4, true, 4, true},    // column-major
		{4, 5, 1, 7, true, 7, true},    // column-major, padded columns
		{4, 5, 2, 10, false, 0, false}, // no unit stride
		{4, 5, 3, 1, false, 0, false},  // rows overlap
		{4, 5, 0, 1, false, 0, false},  // broadcast rows
		{1, 5, 0, 1, false, 5, true},   // one row: its stride is free
		{4, 1, 3, 0, false, 3, true},   // one column
		{4, 1, 1, 0, false, 1, true},   // one column, unit row stride
		{1, 1, 0, 0, false, 1, true},
		{4, 5, -5, 1, false, 0, false}, // negative stride
	}
	for _, c := range cases {
		tr, ld, ok := layout(c.rows, c.cols, c.sr, c.sc)
		assert.Equal(t, c.ok, ok, "%+v", c)
		if ok {
			assert.Equal(t, c.trans, tr, "%+v", c)
			assert.Equal(t, c.ld, ld, "%+v", c)
		}
	}
}

// stepped returns a view of shape whose last dimension has stride step
// (so sgemm cannot read it in place), over a fresh buffer, and its values.
func stepped(t *testing.T, d *Device, vals []float64, shape []int, step int) device.View {
	st := device.ContiguousStrides(shape)
	for i := range st {
		st[i] *= step
	}
	n := device.NumElements(shape) * step
	buf := make([]float64, n)
	for p := 0; p < device.NumElements(shape); p++ {
		buf[p*step] = vals[p]
	}
	return device.View{Buf: upload(t, d, device.Float32, buf), DType: device.Float32, Shape: shape, Strides: st}
}

// TestMatMulPackedOperandsAndManyBatches covers packed (strided) operands,
// operands shared by every batch, products split over batches with the
// epilogue run per batch, and few large batches split inside sgemm.
func TestMatMulPackedOperandsAndManyBatches(t *testing.T) {
	r := newRand(t)
	cases := []struct {
		bt, m, n, k int
		stepA       int  // column stride of A (1: in place)
		stepB       int  // column stride of B
		sharedB     bool // every batch reads one B
	}{
		{8, 33, 21, 40, 2, 1, false},
		{8, 33, 21, 40, 1, 3, true},
		{6, 16, 48, 9, 2, 2, false},
		{3, 160, 130, 120, 1, 1, false}, // few large batches: split inside sgemm
		{3, 160, 130, 120, 2, 2, true},
		{1, 1, 1, 1, 2, 2, false},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%+v/w%d", c, workers), func(t *testing.T) {
				d := newDevice(t, workers)
				av := randVals(r, c.bt*c.m*c.k)
				a := stepped(t, d, av, []int{c.bt, c.m, c.k}, c.stepA)
				nbB := c.bt
				if c.sharedB {
					nbB = 1
				}
				bv := randVals(r, nbB*c.k*c.n)
				b := stepped(t, d, bv, []int{nbB, c.k, c.n}, c.stepB)
				if c.sharedB {
					b.Shape, b.Strides = []int{c.bt, c.k, c.n}, []int{0, b.Strides[1], b.Strides[2]}
				}
				shape := []int{c.bt, c.m, c.n}
				total := device.NumElements(shape)
				biasV := randVals(r, c.n)
				bias := device.View{Buf: upload(t, d, device.Float32, biasV), DType: device.Float32, Shape: shape, Strides: []int{0, 0, 1}}
				out := device.Contiguous(poisoned(t, d, device.Float32, total), device.Float32, 0, shape)
				require.NoError(t, d.MatMul(&device.MatMulKernel{Batch: []int{c.bt}, M: c.m, N: c.n, K: c.k, A: a, B: b,
					EpilogueInputs: []device.View{bias}, Epilogue: biasRelu(), Outputs: []device.View{out}}))
				// The reference reads the views through dense(), which
				// needs each buffer's raw contents.
				rawA := download(t, d, a.Buf, device.Float32, int(a.Buf.Bytes()/4))
				rawB := download(t, d, b.Buf, device.Float32, int(b.Buf.Bytes()/4))
				want, mag := refMatMul(rawA, rawB, a, b, c.bt, c.m, c.n, c.k)
				for i := range want {
					bb := float64(float32(biasV[i%c.n]))
					want[i] = math.Max(want[i]+bb, 0)
					mag[i] += math.Abs(bb)
				}
				requireGemmClose(t, want, mag, download(t, d, out.Buf, device.Float32, total), c.k, "packed/batched")
			})
		}
	}
}

// TestSgemmSeamMatchesReference checks the SIMD sgemm seam and the pure-Go
// reference against float64 for every transpose combination, alpha, beta,
// padded leading dimensions and several thread counts.
func TestSgemmSeamMatchesReference(t *testing.T) {
	r := newRand(t)
	for _, s := range [][3]int{{1, 1, 1}, {5, 3, 257}, {3, 300, 2}, {37, 65, 129}, {130, 70, 64}} {
		m, n, k := s[0], s[1], s[2]
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			for _, ab := range [][2]float32{{1, 0}, {-0.5, 2}} {
				ar, ac := m, k
				if tr[0] {
					ar, ac = k, m
				}
				br, bc := k, n
				if tr[1] {
					br, bc = n, k
				}
				lda, ldb, ldc := ac+3, bc+1, n+2
				a, b := make([]float32, ar*lda), make([]float32, br*ldb)
				for i := range a {
					a[i] = float32(r.NormFloat64())
				}
				for i := range b {
					b[i] = float32(r.NormFloat64())
				}
				c0 := make([]float32, m*ldc)
				for i := range c0 {
					c0[i] = float32(r.NormFloat64())
				}
				at := func(i, p int) float64 {
					if tr[0] {
						return float64(a[p*lda+i])
					}
					return float64(a[i*lda+p])
				}
				bt := func(p, j int) float64 {
					if tr[1] {
						return float64(b[j*ldb+p])
					}
					return float64(b[p*ldb+j])
				}
				for name, f := range map[string]sgemmFunc{"seam": sgemm, "reference": sgemmRef} {
					for _, threads := range []int{1, 2} {
						c := append([]float32(nil), c0...)
						f(threads, tr[0], tr[1], m, n, k, ab[0], a, lda, b, ldb, ab[1], c, ldc)
						for i := 0; i < m; i++ {
							for j := 0; j < n; j++ {
								want, mag := 0.0, 0.0
								for p := 0; p < k; p++ {
									want += at(i, p) * bt(p, j)
									mag += math.Abs(at(i, p) * bt(p, j))
								}
								want = float64(ab[0])*want + float64(ab[1])*float64(c0[i*ldc+j])
								tol := 1e-6*math.Sqrt(float64(k))*mag + 1e-5*math.Abs(float64(c0[i*ldc+j])) + 1e-6
								require.InDelta(t, want, c[i*ldc+j], tol, "%s %v trans %v alpha,beta %v at %d,%d", name, s, tr, ab, i, j)
							}
							for j := n; j < ldc; j++ {
								require.Equal(t, c0[i*ldc+j], c[i*ldc+j], "padding of C must not be written")
							}
						}
					}
				}
			}
		}
	}
}
