package gemm

// Packing B copies it when it is stored row-major (op(B) = B): a k step of a
// panel is already nr consecutive floats of a row, so the colB kernels read
// full panels in place with the k steps ldb floats apart. For products with
// few columns, B is read by few panels of A and the copy does not pay.
//
// Packing A transposes it when it is stored row-major (op(A) = A): the
// micro-kernels broadcast one element of each of mr rows per k step, and a
// packed panel holds those mr elements side by side. For products with few
// columns, each packed panel of A serves few B panels and the transpose is
// a large part of the work (a batch of 64 through a 784→128 layer: 8 of
// about 100 µs on one core). The rowA kernels read A in place instead: row
// r of the tile at a + r*lda, from four base registers indexed by lda and
// 3*lda, which costs nothing per step.
//
// In place, a tile's kc-deep run of A is mr row segments lda floats apart;
// they must stay in L1 while the tile sweeps its B panels. A leading
// dimension near a multiple of 4 KiB maps every segment onto the same L1
// sets, so those products keep packing.

// rowAMaxPanels is the most B panels (of nr columns) a product may have
// for A to be read in place: beyond, packing A is cheap relative to the
// product and keeps the proven path.
const rowAMaxPanels = 16

// L1 geometry assumed for the aliasing check: 64 sets of 64-byte lines
// (48 KiB, 12 ways on the development machine; 32 KiB, 8 ways has the same
// set count), and at most l1MaxRowLines segment lines per set: half the
// ways of the larger cache, leaving the rest to B and C. Fourteen segments
// of 256 floats fill 224 lines, at least four per set; a 784-wide layer
// puts at most five in a set, a 512-wide matrix seven.
const (
	l1Sets        = 64
	l1MaxRowLines = 6
)

// rowAEnabled lets tuning tests compare with packing A everywhere.
var rowAEnabled = true

// useRowA reports whether product p reads A in place with im's rowA kernels.
func useRowA(p *problem, im *impl) bool {
	if !rowAEnabled || im.kernels[inPlaceA][packedB] == nil || p.transA || ceilDiv(p.n, im.nr) > rowAMaxPanels {
		return false
	}
	return !rowsAlias(p.lda, min(p.k, im.kc), min(p.m, im.mr))
}

// Packing A copies it when it is stored transposed (op(A) = Aᵀ, k×m): a k
// step of a panel is already mr consecutive floats of a row of the stored
// matrix, so the colA kernels read A in place with the k steps lda floats
// apart. A weight gradient summed over a long batch (k in the thousands,
// few columns) packs its whole A to use each packed panel for a few B
// panels only, a pass over memory as long as the kernels' own.

// colAEnabled lets tuning tests compare with packing A everywhere.
var colAEnabled = true

// useColA reports whether product p reads its transposed A in place with
// im's colA kernels: as for row-major A, when B has at most rowAMaxPanels
// panels.
func useColA(p *problem, im *impl) bool {
	return colAEnabled && im.kernels[colA][packedB] != nil && p.transA && ceilDiv(p.n, im.nr) <= rowAMaxPanels
}

// colBMaxAPanels is the most A panels (of mr rows) a product may have for
// B to be read in place: each full B panel is then read by that many
// kernel calls per depth block, and in place every call pays for rows
// scattered over pages and sets that a packed panel keeps together.
// Measured single-threaded by thread CPU time: 64×784·784×128 (5 A panels)
// 85 → 73 µs, the MLP's dW1 (10) 92 → 84, conv2 dcol (21) unchanged, 448³
// (32) within noise, 512³ (37) 3% slower, 1000³ (72) 25% slower.
var colBMaxAPanels = 16

// colBMaxRowBytes is the farthest apart B's rows may be for its panels to
// be read in place: at most 1 KiB, four rows or more to a 4 KiB page. The
// hardware prefetchers do not cross pages, so rows farther apart reach the
// kernel from L2 unprefetched, one a k step, and packing B pays (measured
// in docs/cpu-speed.md, "Products on a 32 KiB L1").
const colBMaxRowBytes = 1024

// colBEnabled lets tuning tests compare with packing B everywhere.
var colBEnabled = true

// useColB reports whether product p reads the full panels of B in place,
// k steps ldb floats apart (packing a ragged last panel only): B stored
// row-major (op(B) = B), at least one full panel, at most colBMaxAPanels
// panels of A, and rows at most colBMaxRowBytes apart.
func useColB(p *problem, im *impl) bool {
	return colBEnabled && im.kernels[packedA][inPlaceB] != nil && !p.transB &&
		p.n >= im.nr && ceilDiv(p.m, im.mr) <= colBMaxAPanels &&
		p.ldb*4 <= colBMaxRowBytes
}

// setBound reports whether rows ld floats apart start on the same L1 set
// (multiples of 2 KiB): a kernel reading B's rows in place then keeps its
// whole run of B on a few L1 and L2 sets.
func setBound(ld int) bool { return ld*4%2048 == 0 }

// rowsAlias reports whether rows row segments of depth floats, lda floats
// apart, put more than l1MaxRowLines lines into some L1 set.
func rowsAlias(lda, depth, rows int) bool {
	var count [l1Sets]int
	for r := 0; r < rows; r++ {
		first := r * lda * 4 / cacheLine
		last := (r*lda*4 + depth*4 - 1) / cacheLine
		for l := first; l <= last && l < first+l1Sets; l++ {
			count[l%l1Sets]++
			if count[l%l1Sets] > l1MaxRowLines {
				return true
			}
		}
	}
	return false
}
