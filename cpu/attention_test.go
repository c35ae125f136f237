package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// attnCase is one attention test problem: sizes, masking and how the
// operands are laid out.
type attnCase struct {
	batch       []int
	l, s, e, ev int
	causal      bool
	layout      string // attnLayouts
	special     string // "", "nanQ", "infQ", "nanV", "nanK", "nanGradOut", "huge": values planted in one row
}

// attnLayouts: contiguous; last two dimensions transposed (Q, K, V, Out,
// GradOut); every dimension reversed; offset views; K and V broadcast
// along the first batch dimension (stride 0); the GPT's permuted
// [N, H, L, Dh] views of one [N, L, 3·H·Dh] buffer.
var attnLayouts = []string{"contiguous", "transposed", "reversed", "offset", "broadcast", "gpt"}

func (c attnCase) String() string {
	cm := ""
	if c.causal {
		cm = "causal/"
	}
	return fmt.Sprintf("%sB%v/L%d/S%d/E%d/Ev%d/%s%s", cm, c.batch, c.l, c.s, c.e, c.ev, c.layout, c.special)
}

// attnPlace uploads vals (row-major over shape) into a fresh buffer holding
// the dimensions in the order perm after offset leading elements, and
// returns the view. Elements outside the view are NaN, so a read outside
// it shows.
func attnPlace(t testing.TB, d *Device, vals []float64, shape, perm []int, offset int) device.View {
	st := permutedStrides(shape, perm)
	buf := make([]float64, device.NumElements(shape)+offset)
	for i := range buf {
		buf[i] = math.NaN()
	}
	v := device.View{DType: device.Float32, Offset: offset, Shape: shape, Strides: st}
	for p, x := range vals {
		buf[v.Index(p)] = x
	}
	v.Buf = upload(t, d, device.Float32, buf)
	return v
}

// attnPerm returns the dimension order of a layout for a view of rank r.
func attnPerm(layout string, r int) []int {
	p := make([]int, r)
	for i := range p {
		p[i] = i
	}
	switch layout {
	case "transposed":
		p[r-1], p[r-2] = p[r-2], p[r-1]
	case "reversed":
		slices.Reverse(p)
	}
	return p
}

// attnOffset returns the offset of the i-th view of a layout.
func attnOffset(layout string, i int) int {
	if layout == "offset" {
		return 3 + 4*i
	}
	return 0
}

// attnRandom returns n values in [-2, 2) rounded to float32.
func attnRandom(r *rand.Rand, n int) []float64 {
	v := randVals(r, n)
	for i := range v {
		v[i] = float64(float32(v[i]))
	}
	return v
}

// attnInputs draws the problem's Q, K and V, plants c.special, and places
// them on d in c's layout.
func attnInputs(t testing.TB, d *Device, r *rand.Rand, c attnCase) (*attnRef, [3]device.View) {
	nb := device.NumElements(c.batch)
	p := &attnRef{nb: nb, l: c.l, s: c.s, e: c.e, ev: c.ev, scale: 1 / math.Sqrt(float64(max(c.e, 1))), causal: c.causal,
		q: attnRandom(r, nb*c.l*c.e), k: attnRandom(r, nb*c.s*c.e), v: attnRandom(r, nb*c.s*c.ev)}
	plant := func(x []float64, cols int, val float64) {
		if len(x) > 0 {
			row := r.IntN(len(x) / cols)
			x[row*cols+r.IntN(cols)] = val
		}
	}
	switch c.special {
	case "nanQ":
		plant(p.q, c.e, math.NaN())
	case "infQ":
		plant(p.q, c.e, math.Inf(1))
	case "nanV":
		plant(p.v, c.ev, math.NaN())
	case "nanK":
		plant(p.k, c.e, math.NaN())
	case "huge":
		for i := range p.q {
			p.q[i] *= 1e30
		}
		for i := range p.k {
			p.k[i] *= 1e30
		}
	}
	shape := func(rows, cols int) []int { return append(slices.Clone(c.batch), rows, cols) }
	var views [3]device.View
	switch c.layout {
	case "gpt":
		views = attnGPTViews(t, d, p, c.batch)
	case "broadcast":
		// K and V hold one matrix per index of the batch dimensions after
		// the first: copy batch element 0's run over the first dimension.
		n0 := nb / c.batch[0]
		for i := 1; i < c.batch[0]; i++ {
			copy(p.k[i*n0*c.s*c.e:(i+1)*n0*c.s*c.e], p.k[:n0*c.s*c.e])
			copy(p.v[i*n0*c.s*c.ev:(i+1)*n0*c.s*c.ev], p.v[:n0*c.s*c.ev])
		}
		views[0] = attnPlace(t, d, p.q, shape(c.l, c.e), attnPerm("", len(c.batch)+2), 0)
		for i, x := range []struct {
			vals []float64
			cols int
		}{{p.k, c.e}, {p.v, c.ev}} {
			one := shape(c.s, x.cols)
			one[0] = 1
			v := attnPlace(t, d, x.vals[:n0*c.s*x.cols], one, attnPerm("", len(one)), 0)
			v.Shape[0], v.Strides[0] = c.batch[0], 0
			views[i+1] = v
		}
	default:
		r := len(c.batch) + 2
		views[0] = attnPlace(t, d, p.q, shape(c.l, c.e), attnPerm(c.layout, r), attnOffset(c.layout, 0))
		views[1] = attnPlace(t, d, p.k, shape(c.s, c.e), attnPerm(c.layout, r), attnOffset(c.layout, 1))
		views[2] = attnPlace(t, d, p.v, shape(c.s, c.ev), attnPerm(c.layout, r), attnOffset(c.layout, 2))
	}
	return p, views
}

// attnGPTViews places Q, K and V ([N, H, L, Dh] each, L = S, E = Ev) as
// the GPT's attention reads them: one [N, L, 3·H·Dh] buffer holding, per
// position, the heads of Q, then K, then V.
func attnGPTViews(t testing.TB, d *Device, p *attnRef, batch []int) [3]device.View {
	n, h, l, dh := batch[0], batch[1], p.l, p.e
	w := 3 * h * dh
	buf := make([]float64, n*l*w)
	for b := range n {
		for hi := range h {
			for i := range l {
				for e := range dh {
					src := ((b*h+hi)*l+i)*dh + e
					dst := (b*l+i)*w + hi*dh + e
					buf[dst] = p.q[src]
					buf[dst+h*dh] = p.k[src]
					buf[dst+2*h*dh] = p.v[src]
				}
			}
		}
	}
	b := upload(t, d, device.Float32, buf)
	var views [3]device.View
	for i := range views {
		views[i] = device.View{Buf: b, DType: device.Float32, Offset: i * h * dh,
			Shape: []int{n, h, l, dh}, Strides: []int{l * w, dh, w, 1}}
	}
	return views
}

// attnGradViews returns poisoned views for the gradients of c's operands:
// contiguous; for the GPT's layout interleaved in one [N, L, 3, H, E]
// array, as the input projection's gradient holds them; for the other
// permuted layouts with rows two elements apart (gaps that must stay
// untouched).
func attnGradViews(t testing.TB, d *Device, c attnCase) (gq, gk, gv device.View) {
	shapes := [3][]int{
		append(slices.Clone(c.batch), c.l, c.e),
		append(slices.Clone(c.batch), c.s, c.e),
		append(slices.Clone(c.batch), c.s, c.ev),
	}
	var views [3]device.View
	switch {
	case c.layout == "gpt":
		n, h, l, dh := c.batch[0], c.batch[1], c.l, c.e
		w := 3 * h * dh
		buf := poisoned(t, d, device.Float32, n*l*w)
		for i := range views {
			views[i] = device.View{Buf: buf, DType: device.Float32, Offset: i * h * dh,
				Shape: shapes[i], Strides: []int{l * w, dh, w, 1}}
		}
	case c.layout == "contiguous" || c.layout == "offset":
		for i := range views {
			views[i] = device.Contiguous(poisoned(t, d, device.Float32, device.NumElements(shapes[i])), device.Float32, 0, shapes[i])
		}
	default:
		for i, sh := range shapes {
			r := len(sh)
			gapped := slices.Clone(sh)
			gapped[r-1] += 2
			st := device.ContiguousStrides(gapped)
			views[i] = device.View{Buf: poisoned(t, d, device.Float32, device.NumElements(gapped)), DType: device.Float32,
				Shape: sh, Strides: st}
		}
	}
	return views[0], views[1], views[2]
}

// attnGather returns v's elements in row-major order, after checking, with
// gaps, that the elements of its buffer outside v kept their poison (NaN).
func attnGather(t testing.TB, d *Device, v device.View, gaps bool) []float64 {
	lo, hi := v.Span()
	all := download(t, d, v.Buf, device.Float32, hi)
	in := make([]bool, hi)
	out := make([]float64, v.NumElements())
	for p := range out {
		out[p] = all[v.Index(p)]
		in[v.Index(p)] = true
	}
	for i := lo; i < hi; i++ {
		if gaps && !in[i] {
			require.True(t, math.IsNaN(all[i]), "element %d outside the view was written", i)
		}
	}
	return out
}

// attnTol returns absolute and relative tolerances for float32 results
// that sum n terms of size about one.
func attnTol(n int) (atol, rtol float64) {
	return 2e-6 * math.Sqrt(float64(n+1)) * 4, 1e-5
}

// runAttnCase runs the forward and backward kernels on c and compares
// every result with the float64 reference. It returns the results.
func runAttnCase(t *testing.T, d *Device, r *rand.Rand, c attnCase) {
	p, in := attnInputs(t, d, r, c)
	rank := len(c.batch) + 2
	nb := p.nb
	outShape := append(slices.Clone(c.batch), c.l, c.ev)
	lseShape := append(slices.Clone(c.batch), c.l)
	// Out is contiguous, or for permuted operands stored with the rows of
	// the innermost batch dimension interleaved ([B, L, H, Ev] viewed as
	// [B, H, L, Ev], as the GPT's heads).
	out := device.Contiguous(poisoned(t, d, device.Float32, nb*c.l*c.ev), device.Float32, 0, outShape)
	if rank >= 3 && c.layout != "contiguous" && c.layout != "offset" {
		operm := attnPerm("", rank)
		operm[rank-3], operm[rank-2] = operm[rank-2], operm[rank-3]
		out.Strides = permutedStrides(outShape, operm)
	}
	lse := device.Contiguous(poisoned(t, d, device.Float32, nb*c.l), device.Float32, 0, lseShape)
	fk := &device.AttentionKernel{Q: in[0], K: in[1], V: in[2], Scale: p.scale, Causal: c.causal, Out: out, LSE: lse}
	require.NoError(t, d.Attention(fk))
	stored := download(t, d, out.Buf, device.Float32, nb*c.l*c.ev)
	gotOut := make([]float64, len(stored))
	for i := range gotOut {
		gotOut[i] = stored[out.Index(i)]
	}
	gotLSE := download(t, d, lse.Buf, device.Float32, nb*c.l)
	wantOut, wantLSE := p.forward()
	if c.special == "huge" {
		attnCheckNaNRows(t, gotOut, gotLSE, c.ev)
	} else {
		atol, rtol := attnTol(c.s)
		requireClose(t, wantOut, gotOut, atol, rtol, "Out")
		requireClose(t, wantLSE, gotLSE, atol, rtol, "LSE")
	}

	// Backward from the kernel's own Out and LSE, placed in the layout.
	gout := attnRandom(r, nb*c.l*c.ev)
	if c.special == "nanGradOut" && len(gout) > 0 {
		gout[r.IntN(len(gout))] = math.NaN()
	}
	perm := attnPerm(c.layout, rank)
	lperm := attnPerm(c.layout, rank-1)
	if c.layout == "transposed" || c.layout == "gpt" || c.layout == "broadcast" {
		lperm = attnPerm("", rank-1)
	}
	if c.layout == "gpt" || c.layout == "broadcast" {
		perm = attnPerm("transposed", rank)
	}
	bk := &device.AttentionBackwardKernel{Q: in[0], K: in[1], V: in[2], Scale: p.scale, Causal: c.causal,
		Out:     attnPlace(t, d, gotOut, outShape, perm, attnOffset(c.layout, 3)),
		LSE:     attnPlace(t, d, gotLSE, lseShape, lperm, attnOffset(c.layout, 4)),
		GradOut: attnPlace(t, d, gout, outShape, perm, attnOffset(c.layout, 5)),
	}
	bk.GradQ, bk.GradK, bk.GradV = attnGradViews(t, d, c)
	require.NoError(t, d.AttentionBackward(bk))
	shared := c.layout == "gpt" // the three fill one array: no element lies outside them all
	gq, gk, gv := attnGather(t, d, bk.GradQ, !shared), attnGather(t, d, bk.GradK, !shared), attnGather(t, d, bk.GradV, !shared)
	if c.special == "huge" {
		return // no panic, and the forward's NaN rule held
	}
	wq, wk, wv := p.backward(gotOut, gotLSE, gout)
	atol, rtol := attnTol(max(c.s, c.l))
	requireClose(t, wq, gq, 2*atol, rtol, "GradQ")
	requireClose(t, wk, gk, 2*atol, rtol, "GradK")
	requireClose(t, wv, gv, atol, rtol, "GradV")
}

// attnCheckNaNRows checks the NaN rule on rows of extreme scores: a row
// with a NaN LSE is all NaN, any other row is finite.
func attnCheckNaNRows(t *testing.T, out, lse []float64, ev int) {
	for i, x := range lse {
		for c := range ev {
			o := out[i*ev+c]
			if math.IsNaN(x) {
				require.True(t, math.IsNaN(o), "row %d: LSE NaN, Out[%d] = %v", i, c, o)
			} else {
				require.False(t, math.IsNaN(o) || math.IsInf(o, 0), "row %d: LSE %v, Out[%d] = %v", i, x, c, o)
			}
		}
	}
}

// TestAttention compares the fused kernels with the float64 reference over
// ranks, odd sizes, causal masks with fewer or more queries than keys,
// split query blocks, and strided, permuted, offset and broadcast
// operands.
func TestAttention(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	var cases []attnCase
	sizes := []int{1, 3, 17, 33, 130}
	for _, causal := range []bool{false, true} {
		for _, n := range sizes {
			cases = append(cases,
				attnCase{l: n, s: sizes[(slices.Index(sizes, n)+2)%5], e: 3, ev: n, causal: causal, layout: "contiguous"},
				attnCase{batch: []int{3}, l: 17, s: n, e: n, ev: 33, causal: causal, layout: "transposed"},
				attnCase{batch: []int{2, 3}, l: n, s: 17, e: 17, ev: 1, causal: causal, layout: "reversed"})
		}
		cases = append(cases,
			attnCase{batch: []int{2}, l: 3, s: 17, e: 5, ev: 4, causal: causal, layout: "offset"},
			attnCase{batch: []int{2}, l: 33, s: 17, e: 5, ev: 4, causal: causal, layout: "offset"},
			attnCase{batch: []int{3, 2}, l: 33, s: 17, e: 8, ev: 5, causal: causal, layout: "broadcast"},
			attnCase{batch: []int{2, 3}, l: 33, s: 33, e: 16, ev: 16, causal: causal, layout: "gpt"},
			attnCase{l: 300, s: 700, e: 17, ev: 9, causal: causal, layout: "contiguous"},
			attnCase{batch: []int{2}, l: 700, s: 300, e: 9, ev: 17, causal: causal, layout: "transposed"},
			attnCase{l: 130, s: 130, e: 0, ev: 3, causal: causal, layout: "contiguous"},
			attnCase{batch: []int{2}, l: 17, s: 3, e: 4, ev: 0, causal: causal, layout: "contiguous"},
			attnCase{batch: []int{0, 2}, l: 17, s: 3, e: 4, ev: 5, causal: causal, layout: "contiguous"},
			attnCase{batch: []int{2}, l: 0, s: 3, e: 4, ev: 5, causal: causal, layout: "contiguous"},
		)
	}
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) { runAttnCase(t, d, r, c) })
	}
}

// TestAttentionSpecials plants a NaN or +Inf in one row of Q (that row's
// outputs are NaN, the others exact), a NaN in one key of K or V or in one
// row of GradOut (with a causal mask only the outputs whose sums reach it
// are NaN) and huge operands (no panic, and every row either NaN or
// finite).
func TestAttentionSpecials(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	for _, special := range []string{"nanQ", "infQ", "nanV", "nanK", "nanGradOut", "huge"} {
		for _, causal := range []bool{false, true} {
			for _, c := range []attnCase{
				{batch: []int{2}, l: 33, s: 33, e: 8, ev: 5, layout: "contiguous"},
				{batch: []int{2}, l: 130, s: 100, e: 8, ev: 5, layout: "transposed"},
				{l: 700, s: 300, e: 3, ev: 2, layout: "contiguous"},
			} {
				c.causal, c.special = causal, special
				t.Run(c.String(), func(t *testing.T) { runAttnCase(t, d, r, c) })
			}
		}
	}
}

// TestAttentionSerial runs a problem on a one-worker device.
func TestAttentionSerial(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 1)
	runAttnCase(t, d, r, attnCase{batch: []int{4}, l: 70, s: 90, e: 8, ev: 8, causal: true, layout: "reversed"})
}

// TestAttentionValidation checks that invalid kernels are refused with an
// error.
func TestAttentionValidation(t *testing.T) {
	d := newDevice(t, 0)
	buf := func(n int) device.Buffer { return upload(t, d, device.Float32, make([]float64, n)) }
	q := device.Contiguous(buf(2*3*4), device.Float32, 0, []int{2, 3, 4})
	k := device.Contiguous(buf(2*5*4), device.Float32, 0, []int{2, 5, 4})
	v := device.Contiguous(buf(2*5*6), device.Float32, 0, []int{2, 5, 6})
	out := device.Contiguous(buf(2*3*6), device.Float32, 0, []int{2, 3, 6})
	lse := device.Contiguous(buf(2*3), device.Float32, 0, []int{2, 3})
	ok := device.AttentionKernel{Q: q, K: k, V: v, Scale: 0.5, Out: out, LSE: lse}
	require.NoError(t, d.Attention(&ok))
	bad := ok
	bad.Out = device.Contiguous(out.Buf, device.Float32, 0, []int{2, 6, 3})
	require.Error(t, d.Attention(&bad))
	bad = ok
	bad.Scale = math.NaN()
	require.Error(t, d.Attention(&bad))
	bad = ok
	bad.K = device.Contiguous(buf(2*4), device.Float32, 0, []int{2, 0, 4})
	require.Error(t, d.Attention(&bad))
	require.Error(t, d.Attention(nil))

	gq := device.Contiguous(buf(2*3*4), device.Float32, 0, []int{2, 3, 4})
	gk := device.Contiguous(buf(2*5*4), device.Float32, 0, []int{2, 5, 4})
	gv := device.Contiguous(buf(2*5*6), device.Float32, 0, []int{2, 5, 6})
	bok := device.AttentionBackwardKernel{Q: q, K: k, V: v, Out: out, LSE: lse, GradOut: out, Scale: 0.5,
		GradQ: gq, GradK: gk, GradV: gv}
	require.NoError(t, d.AttentionBackward(&bok))
	bb := bok
	bb.GradK = device.View{Buf: gk.Buf, DType: device.Float32, Shape: []int{2, 5, 4}, Strides: []int{1, 8, 2}}
	require.Error(t, d.AttentionBackward(&bb))
	bb = bok
	bb.LSE = out
	require.Error(t, d.AttentionBackward(&bb))
	require.Error(t, d.AttentionBackward(nil))
}
