package cpu

import (
	"github.com/shaderflow/shaderflow/cpu/internal/gemm"
	"github.com/shaderflow/shaderflow/cpu/internal/vec"
)

// Forward 3×3 convolutions with unit strides and dilations by Winograd's
// F(2×2, 3×3): each 2×2 block of outputs (a tile) comes from the 4×4
// block of input around it. With V = Bᵀ·d·B the transformed input block and
// U = G·w·Gᵀ the transformed filter, the tile is Aᵀ·(Σ_c U ⊙ V)·A, so the
// convolution is 16 products, one per position ξ of the 4×4 transforms,
// M_ξ = U_ξ (O×C) · V_ξ (C×tiles): 16 multiplications per tile and channel
// pair instead of 36, 2.25 times fewer. The transforms only add and
// subtract (and G halves), so the rounding stays within a few units of the
// direct sums'.
//
// The transforms run as vector operations over whole rows of tiles: a
// channel's padded input rows, even rows first, are split by column parity
// (vec.SplitPairs), so that a tile's four columns are the even and odd
// columns at tx and tx+1; combining those (B along the columns) and then
// rows ty and ty+1 of the even and odd rows (Bᵀ down the rows) gives each
// V_ξ for all the tiles of a band at once, with one garbage column a row
// of tiles that the copy into V drops. The products read U packed once per
// convolution and V in place (gemm.SgemmTaps, one tap).

// winogradEnabled lets tests compare the products of patches with these.
var winogradEnabled = true

// winogradMinChannels is the fewest input and output channels worth the
// transforms: their cost grows with tiles × channels, the products' savings
// with tiles × channels², and with ResNet-18's 64 channels the transforms
// ate the savings (docs/onnx.md). Tests lower it.
var winogradMinChannels = 128

// winogradMinTilesAcross is the fewest tiles across an output row: fewer
// leave too little work per vector pass of the transforms. Tests lower it.
var winogradMinTilesAcross = 7

// winogradTiles is about how many tiles (columns of the products) one
// piece of work transforms and multiplies at once.
const winogradTiles = 256

// winogradScratch holds a convolution's transformed filters, packed.
type winogradScratch struct {
	u      []float32
	packed [16]gemm.TapsA
}

// winogradPlan is how a convolution's tiles are cut into pieces of work:
// each covers tile rows [ty0, ty0+rows) of images [n0, n0+images), either
// whole images (images ≥ 1, rows = th) or a band of one image.
type winogradPlan struct {
	th, tw       int // tiles down and across an image
	images, rows int // per piece
	bands        int // pieces per image (1 when pieces are whole images)
	pieces       int
}

// winograd returns j's plan for F(2×2, 3×3) on workers workers, and false
// when the convolution runs otherwise: other kernels and strides, groups,
// few channels, or pieces that would not run in parallel (each runs on one
// goroutine).
func (j *convJob) winograd(workers int) (winogradPlan, bool) {
	g := &j.g
	if !winogradEnabled || sgemmTaps == nil || g.groups != 1 || g.k != [3]int{1, 3, 3} ||
		g.s != [3]int{1, 1, 1} || g.dl != [3]int{1, 1, 1} || g.in[0] != 1 || j.xst[4] != 1 ||
		g.n == 0 || g.c < winogradMinChannels || g.o < winogradMinChannels || g.out[1] < 2 || (g.out[2]+1)/2 < winogradMinTilesAcross {
		return winogradPlan{}, false
	}
	p := winogradPlan{th: (g.out[1] + 1) / 2, tw: (g.out[2] + 1) / 2}
	if tiles := p.th * p.tw; tiles >= winogradTiles {
		p.bands = (tiles + winogradTiles - 1) / winogradTiles
		p.rows = (p.th + p.bands - 1) / p.bands
		p.bands = (p.th + p.rows - 1) / p.rows
		p.images, p.pieces = 1, g.n*p.bands
	} else {
		p.images = balanceImages(g.n, max(1, min(g.n, winogradTiles/(p.th*p.tw))), workers)
		p.rows, p.bands, p.pieces = p.th, 1, (g.n+p.images-1)/p.images
	}
	return p, parallelImages(p.pieces, workers)
}

// convWinograd runs j's forward convolution by plan p.
func (d *Device) convWinograd(j *convJob, p winogradPlan) error {
	g := &j.g
	per := g.o * g.outVol
	if err := d.prepareWinograd(j); err != nil {
		return err
	}
	par, err := d.forImages(p.pieces, p.images*per*j.cgk/p.bands, func(ws *workspace, piece, _ int, par bool) {
		n0, ty0 := piece/p.bands*p.images, piece%p.bands*p.rows
		n1, ty1 := min(g.n, n0+p.images), min(p.th, ty0+p.rows)
		j.forwardWinograd(ws, p, n0, n1, ty0, ty1)
		if p.bands == 1 {
			j.imageEpilogue(ws, n0*per, n1*per, par)
		}
	})
	return d.finish(j, par && p.bands == 1, err)
}

// prepareWinograd transforms the filters into j.wino, U_ξ[o][c] =
// (G·w·Gᵀ)_ξ with G = [1 0 0; ½ ½ ½; ½ -½ ½; 0 0 1], and packs them, on
// every worker.
func (d *Device) prepareWinograd(j *convJob) error {
	g := &j.g
	j.wino = &d.scratch.wino
	u := grow(j.wino.u, 16*g.o*g.c)
	j.wino.u = u
	plane := g.o * g.c
	err := d.parallelFor(g.o, 1, func(_, lo, hi int) {
		for at := lo * g.c; at < hi*g.c; at++ {
			w := j.w[at*9:][:9]
			for i := 0; i < 4; i++ { // row i of G·w, then its product with Gᵀ
				var r0, r1, r2 float32
				switch i {
				case 0:
					r0, r1, r2 = w[0], w[1], w[2]
				case 1:
					r0, r1, r2 = (w[0]+w[3]+w[6])/2, (w[1]+w[4]+w[7])/2, (w[2]+w[5]+w[8])/2
				case 2:
					r0, r1, r2 = (w[0]-w[3]+w[6])/2, (w[1]-w[4]+w[7])/2, (w[2]-w[5]+w[8])/2
				default:
					r0, r1, r2 = w[6], w[7], w[8]
				}
				u[(4*i)*plane+at] = r0
				u[(4*i+1)*plane+at] = (r0 + r1 + r2) / 2
				u[(4*i+2)*plane+at] = (r0 - r1 + r2) / 2
				u[(4*i+3)*plane+at] = r2
			}
		}
	})
	if err != nil {
		return err
	}
	return d.parallelFor(16, 1, func(_, lo, hi int) {
		for xi := lo; xi < hi; xi++ {
			j.wino.packed[xi].Pack(g.o, g.c, 1, u[xi*plane:], g.c)
		}
	})
}

// forwardWinograd computes tile rows [ty0, ty1) of images [n0, n1): the
// input transform channel by channel (its passes stay in L1), the 16
// products, the output transform channel by channel.
func (j *convJob) forwardWinograd(ws *workspace, p winogradPlan, n0, n1, ty0, ty1 int) {
	g := &j.g
	band := (ty1 - ty0) * p.tw // an image's columns in the products
	cols := (n1 - n0) * band
	ldb := gemm.TapsLeadingDim(cols)
	ws.col = grow(ws.col, 16*g.c*ldb+gemm.TapsTile)
	ws.tmp = grow(ws.tmp, 16*g.o*cols)
	v, m := ws.col, ws.tmp
	for n := n0; n < n1; n++ {
		for c := 0; c < g.c; c++ {
			j.winogradInput(ws, p, n, c, ty0, ty1, v[c*ldb+(n-n0)*band:], g.c*ldb, n == n0 && c == 0)
		}
	}
	for xi := 0; xi < 16; xi++ {
		sgemmTaps(cols, &j.wino.packed[xi], v[xi*g.c*ldb:], ldb, winogradTap[:], m[xi*g.o*cols:], cols)
	}
	for n := n0; n < n1; n++ {
		for o := 0; o < g.o; o++ {
			j.winogradOutput(ws, p, n, o, ty0, ty1, m[o*cols+(n-n0)*band:], g.o*cols)
		}
	}
}

// winogradTap is the one offset of the products' single tap.
var winogradTap = [1]int{0}

// winogradInput writes V_ξ = (Bᵀ·d·B)_ξ, Bᵀ = [1 0 -1 0; 0 1 1 0; 0 -1 1 0;
// 0 1 0 -1], for channel c of image n over tile rows [ty0, ty1): plane ξ at
// v[ξ·plane:], tile (ty, tx) at column (ty-ty0)·tw + tx. With clearPad,
// the padded input buffer is cleared first: its padding stays zero while
// the tile rows are the same.
func (j *convJob) winogradInput(ws *workspace, p winogradPlan, n, c, ty0, ty1 int, v []float32, plane int, clearPad bool) {
	g := &j.g
	rows := ty1 - ty0
	w2, h2, cw := 2*p.tw+2, 2*rows+2, p.tw+1 // the padded input block the tiles read; its columns after the split
	size := h2 * cw                          // floats of the block after the split
	t := rows * cw                           // transformed values a plane, the garbage column included
	ws.band = grow(ws.band, 8*size+16*t)
	pad := ws.band[:2*size] // the padded rows, even rows first, then odd
	if clearPad {
		clear(pad)
	}
	x := j.x[j.xoff+n*j.xst[0]+c*j.xst[1]:]
	if cols := min(g.in[2], w2-g.p[2]); cols > 0 {
		for parity := 0; parity < 2; parity++ {
			// Padded row r = 2i + parity reads input row 2·ty0 + r - p.
			first := 2*ty0 + parity - g.p[1]
			lo, hi := max(0, (-first+1)/2), min(h2/2, (g.in[1]-first+1)/2)
			if hi > lo {
				vec.CopyRows(pad[parity*size+lo*w2+g.p[2]:], w2, x[(first+2*lo)*j.xst[3]:], 2*j.xst[3], hi-lo, cols)
			}
		}
	}
	ev, od := ws.band[2*size:][:size], ws.band[3*size:][:size]
	vec.SplitPairs(ev, od, pad)
	// B along the columns: a tile's columns are ev[tx], od[tx], ev[tx+1], od[tx+1].
	m := size - 1
	var cj [4][]float32
	for k := range cj {
		cj[k] = ws.band[(4+k)*size:][:size]
	}
	vec.Sub(cj[0][:m], ev[:m], ev[1:])
	vec.Add(cj[1][:m], od[:m], ev[1:])
	vec.Sub(cj[2][:m], ev[1:], od[:m])
	vec.Sub(cj[3][:m], od[:m], od[1:])
	// Bᵀ down the rows: a tile's rows are the even and odd rows at ty and
	// ty+1. Each row of tiles has a garbage column (tx = tw), which the
	// copy into V drops.
	hs := h2 / 2 * cw // the odd rows' offset
	vt := ws.band[8*size:][:16*t]
	for k, cr := range cj {
		cr[m] = 0 // the last row's garbage column
		e0, e1, o0, o1 := cr[:t], cr[cw:][:t], cr[hs:][:t], cr[hs+cw:][:t]
		vec.Sub(vt[k*t:][:t], e0, e1)
		vec.Add(vt[(4+k)*t:][:t], o0, e1)
		vec.Sub(vt[(8+k)*t:][:t], e1, o0)
		vec.Sub(vt[(12+k)*t:][:t], o0, o1)
	}
	vec.CopyBlocks(v, p.tw, plane, vt, cw, t, 16, rows, p.tw)
}

// winogradOutput writes output channel o of image n over tile rows [ty0,
// ty1), Aᵀ·M·A with Aᵀ = [1 1 1 0; 0 1 -1 -1], from the products' values at
// m[ξ·plane:] (tiles as in winogradInput), dropping the outputs past the
// edge.
func (j *convJob) winogradOutput(ws *workspace, p winogradPlan, n, o, ty0, ty1 int, m []float32, plane int) {
	g := &j.g
	tw := p.tw
	t := (ty1 - ty0) * tw
	ws.pack = grow(ws.pack, 12*t)
	s := ws.pack[:8*t]
	y := ws.pack[8*t:][:4*t]
	for k := 0; k < 4; k++ { // s_ik = (Aᵀ·M)_ik
		s0, s1 := s[k*t:][:t], s[(4+k)*t:][:t]
		m0, m1, m2, m3 := m[k*plane:][:t], m[(4+k)*plane:][:t], m[(8+k)*plane:][:t], m[(12+k)*plane:][:t]
		vec.Add(s0, m0, m1)
		vec.Add(s0, s0, m2)
		vec.Sub(s1, m1, m2)
		vec.Sub(s1, s1, m3)
	}
	for i := 0; i < 2; i++ { // y_ij = (Aᵀ·M·A)_ij
		si := s[4*i*t:]
		y0, y1 := y[2*i*t:][:t], y[(2*i+1)*t:][:t]
		vec.Add(y0, si[:t], si[t:][:t])
		vec.Add(y0, y0, si[2*t:][:t])
		vec.Sub(y1, si[t:][:t], si[2*t:][:t])
		vec.Sub(y1, y1, si[3*t:][:t])
	}
	oh, ow := g.out[1], g.out[2]
	res := j.res[(n*g.o+o)*g.outVol:][:g.outVol]
	pairs := ow / 2
	for ty := ty0; ty < ty1; ty++ {
		at := (ty - ty0) * tw
		for i := 0; i < 2 && 2*ty+i < oh; i++ {
			out := res[(2*ty+i)*ow:][:2*pairs]
			y0, y1 := y[2*i*t+at:][:pairs], y[(2*i+1)*t+at:][:pairs]
			for tx, e := range y0 {
				out[2*tx], out[2*tx+1] = e, y1[tx]
			}
			if ow%2 == 1 {
				res[(2*ty+i)*ow+ow-1] = y[2*i*t+at+pairs]
			}
		}
	}
}
