package cpu

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// refMatMul computes the float64 product of views a (batch++[m,k]) and b
// (batch++[k,n]), and for each element the sum of |a||b| that bounds its
// rounding error.
func refMatMul(av, bv []float64, a, b device.View, bt, m, n, k int) (c, mag []float64) {
	x, y := dense(av, a), dense(bv, b)
	c, mag = make([]float64, bt*m*n), make([]float64, bt*m*n)
	for q := 0; q < bt; q++ {
		for i := 0; i < m; i++ {
			xr := x[(q*m+i)*k : (q*m+i+1)*k]
			for j := 0; j < n; j++ {
				s, g := 0.0, 0.0
				for p, xv := range xr {
					v := xv * y[(q*k+p)*n+j]
					s += v
					g += math.Abs(v)
				}
				c[(q*m+i)*n+j], mag[(q*m+i)*n+j] = s, g
			}
		}
	}
	return c, mag
}

// dense returns the view's elements in row-major order, rounded to float32.
func dense(vals []float64, v device.View) []float64 {
	out := make([]float64, v.NumElements())
	for p := range out {
		out[p] = float64(float32(at(vals, v, p)))
	}
	return out
}

// requireGemmClose checks got against want within a bound scaled by each
// element's magnitude sum and the reduction length.
func requireGemmClose(t *testing.T, want, mag, got []float64, k int, msg string) {
	t.Helper()
	tol := 4e-7 * math.Sqrt(float64(k)+1)
	for i := range want {
		if math.Abs(want[i]-got[i]) > tol*mag[i]+1e-6 {
			require.Failf(t, "mismatch", "%s: element %d: want %v, got %v", msg, i, want[i], got[i])
		}
	}
}

func TestMatMulShapesAndLayouts(t *testing.T) {
	r := newRand(t)
	cases := []struct {
		name        string
		batch       []int
		m, n, k     int
		permA       []int // layout of A's buffer (identity: row-major)
		permB       []int
		broadcastB  bool // B's batch stride is zero
		workers     int
		checkLarger bool
	}{
		{"odd large", nil, 513, 257, 1027, []int{0, 1}, []int{0, 1}, false, 0, true},
		{"transposed A", nil, 67, 45, 33, []int{1, 0}, []int{0, 1}, false, 3, false},
		{"transposed B", nil, 64, 130, 300, []int{0, 1}, []int{1, 0}, false, 2, false},
		{"both transposed", nil, 5, 7, 9, []int{1, 0}, []int{1, 0}, false, 1, false},
		{"batched", []int{3, 2}, 17, 19, 23, []int{0, 1, 2, 3}, []int{0, 1, 3, 2}, false, 3, false},
		{"broadcast B", []int{4}, 33, 8, 16, []int{0, 1, 2}, []int{0, 2, 1}, true, 2, false},
		{"vector", nil, 1, 300, 77, []int{0, 1}, []int{0, 1}, false, 2, false},
		{"column", nil, 300, 1, 77, []int{1, 0}, []int{1, 0}, false, 2, false},
		// Long depths over few results, split by depth among the workers.
		{"long depth", nil, 37, 29, 2049, []int{0, 1}, []int{0, 1}, false, 2, false},
		{"long depth, A transposed", nil, 64, 130, 4100, []int{1, 0}, []int{0, 1}, false, 2, false},
		{"long depth, B transposed, batched", []int{2}, 11, 40, 3000, []int{0, 1, 2}, []int{0, 2, 1}, false, 3, false},
		{"long depth, both transposed", nil, 9, 20, 6001, []int{1, 0}, []int{1, 0}, false, 5, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDevice(t, c.workers)
			nb := len(c.batch)
			a, av := strided(t, d, r, device.Float32, append(append([]int{}, c.batch...), c.m, c.k), c.permA, 3)
			bShape := append(append([]int{}, c.batch...), c.k, c.n)
			var b device.View
			var bv []float64
			if c.broadcastB {
				b, bv = strided(t, d, r, device.Float32, append([]int{1}, bShape[nb:]...), c.permB, 0)
				b.Shape, b.Strides = bShape, append([]int{0}, b.Strides[1:]...)
			} else {
				b, bv = strided(t, d, r, device.Float32, bShape, c.permB, 1)
			}
			bt := device.NumElements(c.batch)
			out := device.Contiguous(poisoned(t, d, device.Float32, bt*c.m*c.n), device.Float32, 0, append(append([]int{}, c.batch...), c.m, c.n))
			k := &device.MatMulKernel{Batch: c.batch, M: c.m, N: c.n, K: c.k, A: a, B: b, Epilogue: device.Identity(device.Float32), Outputs: []device.View{out}}
			require.NoError(t, d.MatMul(k))
			want, mag := refMatMul(av, bv, a, b, bt, c.m, c.n, c.k)
			requireGemmClose(t, want, mag, download(t, d, out.Buf, device.Float32, bt*c.m*c.n), c.k, c.name)
		})
	}
}

func TestMatMulEpilogueBiasReluResidual(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	m, n, k := 40, 70, 50
	a, av := strided(t, d, r, device.Float32, []int{m, k}, []int{0, 1}, 0)
	w, wv := strided(t, d, r, device.Float32, []int{n, k}, []int{0, 1}, 0) // Linear weight [out, in]
	b := device.View{Buf: w.Buf, DType: device.Float32, Shape: []int{k, n}, Strides: []int{1, k}}
	bias, biasV := strided(t, d, r, device.Float32, []int{1, n}, []int{0, 1}, 0)
	bias.Shape, bias.Strides = []int{m, n}, []int{0, 1}
	res, resV := strided(t, d, r, device.Float32, []int{m, n}, []int{1, 0}, 0)
	// relu(a·wᵀ + bias) + res, stored as float32 and float16.
	var e device.Builder
	y := e.Unary(device.OpRelu, e.Binary(device.OpAdd, e.Input(0, device.Float32), e.Input(1, device.Float32)))
	e.Output(e.Binary(device.OpAdd, y, e.Input(2, device.Float32)))
	e.Output(y)
	o32 := device.Contiguous(poisoned(t, d, device.Float32, m*n), device.Float32, 0, []int{m, n})
	o16 := device.Contiguous(poisoned(t, d, device.Float16, m*n), device.Float16, 0, []int{m, n})
	require.NoError(t, d.MatMul(&device.MatMulKernel{M: m, N: n, K: k, A: a, B: b, EpilogueInputs: []device.View{bias, res},
		Epilogue: e.P, Outputs: []device.View{o32, o16}}))
	want, mag := refMatMul(av, wv, a, b, 1, m, n, k)
	want16 := make([]float64, m*n)
	for i := range want {
		bv := float64(float32(at(biasV, bias, i)))
		rv := float64(float32(at(resV, res, i)))
		yy := math.Max(want[i]+bv, 0)
		want[i], want16[i] = yy+rv, yy
		mag[i] += math.Abs(bv) + math.Abs(rv)
	}
	requireGemmClose(t, want, mag, download(t, d, o32.Buf, device.Float32, m*n), k, "epilogue")
	requireClose(t, want16, download(t, d, o16.Buf, device.Float16, m*n), 1e-3, 1e-3, "float16 output")
}

func TestMatMulDegenerate(t *testing.T) {
	d := newDevice(t, 0)
	buf := upload(t, d, device.Float32, []float64{1, 2, 3})
	empty := device.View{Buf: buf, DType: device.Float32, Shape: []int{4, 0}, Strides: []int{0, 1}}
	emptyB := device.View{Buf: buf, DType: device.Float32, Shape: []int{0, 3}, Strides: []int{3, 1}}
	out := device.Contiguous(poisoned(t, d, device.Float32, 12), device.Float32, 0, []int{4, 3})
	require.NoError(t, d.MatMul(&device.MatMulKernel{M: 4, N: 3, K: 0, A: empty, B: emptyB, Epilogue: device.Identity(device.Float32), Outputs: []device.View{out}}))
	require.Equal(t, make([]float64, 12), download(t, d, out.Buf, device.Float32, 12), "K = 0 gives zeros")
	// Output aliasing an operand goes through scratch and stays correct.
	sq := upload(t, d, device.Float32, []float64{1, 2, 3, 4})
	v := device.Contiguous(sq, device.Float32, 0, []int{2, 2})
	require.NoError(t, d.MatMul(&device.MatMulKernel{M: 2, N: 2, K: 2, A: v, B: v, Epilogue: device.Identity(device.Float32), Outputs: []device.View{v}}))
	require.Equal(t, []float64{7, 10, 15, 22}, download(t, d, sq, device.Float32, 4))
}

func TestSgemmGoEdgeSizes(t *testing.T) {
	r := newRand(t)
	for _, s := range [][3]int{{1, 1, 1}, {4, 4, 4}, {5, 3, 257}, {3, 300, 2}, {9, 513, 260}} {
		m, n, k := s[0], s[1], s[2]
		lda, ldb, ldc := k+3, n+1, n+2
		a, b, c := make([]float32, m*lda), make([]float32, k*ldb), make([]float32, m*ldc)
		for i := range a {
			a[i] = float32(r.NormFloat64())
		}
		for i := range b {
			b[i] = float32(r.NormFloat64())
		}
		for i := range c {
			c[i] = float32(math.NaN())
		}
		sgemmGo(m, n, k, a, lda, b, ldb, c, ldc)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				want, mag := 0.0, 0.0
				for p := 0; p < k; p++ {
					want += float64(a[i*lda+p]) * float64(b[p*ldb+j])
					mag += math.Abs(float64(a[i*lda+p]) * float64(b[p*ldb+j]))
				}
				require.InDelta(t, want, c[i*ldc+j], 1e-6*math.Sqrt(float64(k))*mag+1e-6, "%v at %d,%d", s, i, j)
			}
			for j := n; j < ldc; j++ {
				require.True(t, math.IsNaN(float64(c[i*ldc+j])), "padding of C must not be written")
			}
		}
	}
}
