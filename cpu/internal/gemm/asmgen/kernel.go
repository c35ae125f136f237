package main

import (
	"bytes"
	"fmt"
)

// isa describes one vector instruction set the generator targets.
type isa struct {
	name    string // suffix of symbol names: "AVX512", "AVX2"
	reg     string // vector register prefix: "Z" or "Y"
	width   int    // float32 lanes per vector
	numRegs int    // vector registers available
	zero    string // instruction that zeroes a register: op R, R, R
}

var (
	avx512 = isa{name: "AVX512", reg: "Z", width: 16, numRegs: 32, zero: "VPXORD"}
	avx2   = isa{name: "AVX2", reg: "Y", width: 8, numRegs: 16, zero: "VXORPS"}
)

// kernel is one register-blocked micro-kernel for panels of mr rows of A
// and nv vectors of columns of B (NR = nv*width). It computes the first rows
// rows of the tile (rows == mr for the main kernel; the others serve the
// ragged last panel of A without computing padding).
//
// A kernel with rowA reads A in place from a row-major matrix instead of a
// packed panel: row r of the tile at a + r*lda, k steps contiguous. Its
// last argument is lda (floats) instead of the pfA prefetch address: rows
// are reached from four base registers (rows 0–3, 4–7, 8–11, 12–15) indexed
// by lda and 3*lda.
//
// A kernel with colA reads A in place from a transposed operand: A stored
// k×m row-major (op(A) = Aᵀ), so a k step of the tile is mr consecutive
// floats and the steps are lda floats apart. Its last argument is lda
// (floats), as for rowA.
//
// A kernel with colB reads B in place from a row-major matrix (k steps ldb
// floats apart) instead of a packed panel; its pf argument is ldb (floats)
// and it issues no L2 prefetch.
type kernel struct {
	isa       isa
	mr, nv    int
	rows      int
	unroll    int  // k steps per main-loop iteration
	prefetchC bool // prefetch the C tile into L1 before the k loop
	rowA      bool // A in place, row-major with leading dimension lda
	colA      bool // A in place, stored transposed (k×m) with leading dimension lda
	colB      bool // B in place, row-major with leading dimension ldb
	// copying kernels read A from a row-major block whose rows are
	// copyARowBytes apart (a constant) and, while they compute, copy pieces
	// of 128 bytes described by the copy job at pfA (see copyJob in
	// package gemm): one piece per iteration of the unrolled k loop.
	copying bool
}

// copyARowBytes is the distance between the rows of the A block a copying
// kernel reads: 256 floats and a cache line, so that the rows of a tile
// spread over the L1 sets instead of sharing them.
const copyARowBytes = 256*4 + 64

// copyPrefetchPieces is how many pieces ahead a copying kernel prefetches
// its source (a power of two): about a microsecond of k loop, enough for a
// line to come from DRAM.
const copyPrefetchPieces = 16

// The fields of package gemm's copyPieces, in bytes from its start.
const (
	jobSrc     = 0
	jobDst     = 8
	jobSStride = 16
	jobDStride = 24
	jobCount   = 32
)

// kernels lists the main kernels; each also gets its partial-row variants.
var kernels = []kernel{
	{isa: avx512, mr: 14, nv: 2, unroll: 4, prefetchC: true},
	{isa: avx2, mr: 6, nv: 2, unroll: 4, prefetchC: true},
	{isa: avx512, mr: 14, nv: 2, unroll: 4, prefetchC: true, rowA: true},
	{isa: avx2, mr: 6, nv: 2, unroll: 4, prefetchC: true, rowA: true},
	{isa: avx512, mr: 14, nv: 2, unroll: 4, prefetchC: true, colB: true},
	{isa: avx2, mr: 6, nv: 2, unroll: 4, prefetchC: true, colB: true},
	{isa: avx512, mr: 14, nv: 2, unroll: 4, prefetchC: true, rowA: true, colB: true},
	{isa: avx2, mr: 6, nv: 2, unroll: 4, prefetchC: true, rowA: true, colB: true},
	{isa: avx512, mr: 14, nv: 2, unroll: 4, prefetchC: true, copying: true},
	{isa: avx512, mr: 14, nv: 2, unroll: 4, prefetchC: true, colA: true},
	{isa: avx2, mr: 6, nv: 2, unroll: 4, prefetchC: true, colA: true},
	{isa: avx512, mr: 14, nv: 2, unroll: 4, prefetchC: true, colA: true, colB: true},
	{isa: avx2, mr: 6, nv: 2, unroll: 4, prefetchC: true, colA: true, colB: true},
}

// rowABases are the base registers of rows 0–3, 4–7, 8–11 and 12–15 of a
// rowA kernel; R12 holds lda and AX 3*lda, in bytes.
var rowABases = []string{"SI", "BX", "R13", "R14"}

// withRows returns the main kernel (rows == mr) and its variants for 1 to
// mr-1 rows.
func (k kernel) withRows() []kernel {
	var ks []kernel
	for r := k.mr; r >= 1; r-- {
		v := k
		v.rows = r
		ks = append(ks, v)
	}
	return ks
}

func (k kernel) nr() int { return k.nv * k.isa.width }

func (k kernel) symbol() string {
	s := fmt.Sprintf("sgemmKernel%dx%d%s", k.mr, k.nr(), k.isa.name)
	if k.rowA {
		s += "RowA"
	}
	if k.colA {
		s += "ColA"
	}
	if k.colB {
		s += "ColB"
	}
	if k.copying {
		s += "Copy"
	}
	if k.rows != k.mr {
		s += fmt.Sprintf("Rows%d", k.rows)
	}
	return s
}

func (k kernel) acc(r, v int) string { return fmt.Sprintf("%s%d", k.isa.reg, r*k.nv+v) }
func (k kernel) bvec(v int) string   { return fmt.Sprintf("%s%d", k.isa.reg, k.rows*k.nv+v) }

// bcast returns the broadcast register for row r: two alternate when there is room.
func (k kernel) bcast(r int) string {
	base := k.rows*k.nv + k.nv
	if base+1 < k.isa.numRegs {
		return fmt.Sprintf("%s%d", k.isa.reg, base+r%2)
	}
	return fmt.Sprintf("%s%d", k.isa.reg, base)
}

func (k kernel) proto(g *bytes.Buffer) {
	fmt.Fprintf(g, "\n// %s computes a %d×%d tile of C = alpha*A*B + beta*C with %s from k\n", k.symbol(), k.rows, k.nr(), k.isa.name)
	aDoc := fmt.Sprintf("packed A (groups of %d floats)", k.mr)
	if k.rowA {
		aDoc = "row-major A in place (rows lda floats apart, lda passed as pfA)"
	}
	if k.colA {
		aDoc = "transposed A in place (k steps lda floats apart, lda passed as pfA)"
	}
	if k.copying {
		aDoc = fmt.Sprintf("row-major A (rows %d bytes apart)", copyARowBytes)
	}
	bDoc := fmt.Sprintf("packed B (groups of %d floats)", k.nr())
	if k.colB {
		bDoc = "row-major B in place (rows ldb floats apart, ldb passed as pf)"
	}
	fmt.Fprintf(g, "// steps of %s and %s.\n", aDoc, bDoc)
	g.WriteString("// C rows are ldc floats apart; beta == 0 stores without reading C.\n")
	switch {
	case k.copying:
		g.WriteString("// Each iteration of the unrolled k loop prefetches into L2 the next cache\n")
		g.WriteString("// line from address pf and copies one piece of the copy job at pfA.\n")
	case !k.inPlaceA() && !k.colB:
		g.WriteString("// Each iteration of the unrolled k loop prefetches into L2 the next cache\n")
		g.WriteString("// line from address pf, and into L1 the next from pfA (hints: any address\n// is safe).\n")
	case !k.colB:
		g.WriteString("// Each iteration of the unrolled k loop prefetches into L2 the next cache\n")
		g.WriteString("// line from address pf (a hint: any address is safe).\n")
	case !k.inPlaceA():
		g.WriteString("// Each iteration of the unrolled k loop prefetches into L1 the next cache\n")
		g.WriteString("// line from address pfA (a hint: any address is safe).\n")
	}
	g.WriteString("//\n//go:noescape\n")
	fmt.Fprintf(g, "func %s(k int, a, b, c *float32, ldc int, alpha, beta float32, pf, pfA uintptr)\n", k.symbol())
}

// table writes a Go array of the kernel and its variants indexed by rows.
func (k kernel) table(g *bytes.Buffer) {
	k.rows = k.mr
	fmt.Fprintf(g, "\n// %sByRows indexes %s and its partial-row variants by the rows they compute.\n", k.symbol(), k.symbol())
	fmt.Fprintf(g, "var %sByRows = [%d]func(k int, a, b, c *float32, ldc int, alpha, beta float32, pf, pfA uintptr){\n", k.symbol(), k.mr+1)
	for _, v := range k.withRows() {
		fmt.Fprintf(g, "%d: %s,\n", v.rows, v.symbol())
	}
	g.WriteString("}\n")
}

func (k kernel) emit(s *bytes.Buffer) {
	if need := k.rows*k.nv + k.nv + 1; need > k.isa.numRegs {
		panic(fmt.Sprintf("asmgen: kernel %s needs %d registers", k.symbol(), need))
	}
	sym := k.symbol()
	w := func(format string, args ...any) { fmt.Fprintf(s, "\t"+format+"\n", args...) }
	fmt.Fprintf(s, "\n// func %s(k int, a, b, c *float32, ldc int, alpha, beta float32, pf, pfA uintptr)\n", sym)
	fmt.Fprintf(s, "TEXT ·%s(SB), NOSPLIT, $8-64\n", sym)
	flushDenormals(w)
	w("MOVQ k+0(FP), CX")
	w("MOVQ a+8(FP), SI")
	w("MOVQ b+16(FP), DI")
	w("MOVQ c+24(FP), DX")
	w("MOVQ ldc+32(FP), R8")
	w("SHLQ $2, R8")
	w("MOVQ pf+48(FP), R11")
	if k.colB {
		w("SHLQ $2, R11")
	}
	w("MOVQ pfA+56(FP), R12")
	if k.copying {
		w("MOVQ %d(R12), R13", jobSrc)
		w("MOVQ %d(R12), R14", jobDst)
		w("MOVQ %d(R12), R15", jobSStride)
		w("MOVQ %d(R12), BX", jobDStride)
		w("MOVQ %d(R12), AX", jobCount)
		w("MOVQ R15, R12") // R12: the piece copyPrefetchPieces ahead
		w("SHLQ $%d, R12", log2(copyPrefetchPieces))
		w("ADDQ R13, R12")
	}
	if k.colA {
		w("SHLQ $2, R12")
	}
	if k.rowA {
		w("SHLQ $2, R12")
		w("LEAQ (R12)(R12*2), AX")
		for i := 1; i < len(rowABases) && 4*i < k.rows; i++ {
			w("LEAQ (%s)(R12*4), %s", rowABases[i-1], rowABases[i])
		}
	}
	if k.prefetchC {
		w("MOVQ DX, R10")
		for r := 0; r < k.rows; r++ {
			for off := 0; off < k.nr()*4; off += 64 {
				w("PREFETCHT0 %d(R10)", off)
			}
			w("PREFETCHT0 %d(R10)", k.nr()*4-1)
			if r+1 < k.rows {
				w("ADDQ R8, R10")
			}
		}
	}
	for r := 0; r < k.rows; r++ {
		for v := 0; v < k.nv; v++ {
			a := k.acc(r, v)
			w("%s %s, %s, %s", k.isa.zero, a, a, a)
		}
	}
	w("MOVQ CX, R9")
	w("SHRQ $%d, R9", log2(k.unroll))
	w("JZ %s_tail", sym)
	fmt.Fprintf(s, "%s_loop:\n", sym)
	for u := 0; u < k.unroll; u++ {
		k.step(w, u)
		if k.colB && u%2 == 1 {
			w("LEAQ (DI)(R11*2), DI")
		}
		if k.colA && u%2 == 1 {
			w("LEAQ (SI)(R12*2), SI")
		}
		switch u {
		case 0:
			if !k.colB {
				w("PREFETCHT1 (R11)")
				w("ADDQ $64, R11")
			}
		case k.unroll / 2:
			switch {
			case k.copying:
				k.copyPiece(s, w, sym)
			case !k.inPlaceA():
				w("PREFETCHT0 (R12)")
				w("ADDQ $64, R12")
			}
		}
	}
	k.advanceA(w, k.unroll)
	if !k.colB {
		w("ADDQ $%d, DI", k.unroll*k.nr()*4)
	}
	w("DECQ R9")
	w("JNZ %s_loop", sym)
	fmt.Fprintf(s, "%s_tail:\n", sym)
	w("ANDQ $%d, CX", k.unroll-1)
	w("JZ %s_store", sym)
	fmt.Fprintf(s, "%s_tailloop:\n", sym)
	k.step(w, 0)
	k.advanceA(w, 1)
	if k.colB {
		w("ADDQ R11, DI")
	} else {
		w("ADDQ $%d, DI", k.nr()*4)
	}
	w("DECQ CX")
	w("JNZ %s_tailloop", sym)
	fmt.Fprintf(s, "%s_store:\n", sym)
	if k.copying { // the job's progress
		w("MOVQ pfA+56(FP), R12")
		w("MOVQ R13, %d(R12)", jobSrc)
		w("MOVQ R14, %d(R12)", jobDst)
		w("MOVQ AX, %d(R12)", jobCount)
	}
	alpha, beta := k.bvec(0), k.bvec(1)
	w("MOVL alpha+40(FP), AX")
	w("CMPL AX, $0x3f800000") // alpha == 1: nothing to scale
	w("JEQ %s_scaled", sym)
	w("VBROADCASTSS alpha+40(FP), %s", alpha)
	for r := 0; r < k.rows; r++ {
		for v := 0; v < k.nv; v++ {
			a := k.acc(r, v)
			w("VMULPS %s, %s, %s", alpha, a, a)
		}
	}
	fmt.Fprintf(s, "%s_scaled:\n", sym)
	w("MOVL beta+44(FP), AX")
	w("ANDL $0x7fffffff, AX")
	w("JZ %s_nobeta", sym)
	w("VBROADCASTSS beta+44(FP), %s", beta)
	k.storeRows(w, func(r, v int, addr string) {
		w("VFMADD231PS %s, %s, %s", addr, beta, k.acc(r, v))
	})
	restoreMXCSR(w)
	w("VZEROUPPER")
	w("RET")
	fmt.Fprintf(s, "%s_nobeta:\n", sym)
	k.storeRows(w, nil)
	restoreMXCSR(w)
	w("VZEROUPPER")
	w("RET")
}

// mxcsrFlush are the MXCSR bits FTZ (results that would be denormal are
// zero) and DAZ (denormal operands read as zero).
const mxcsrFlush = 0x8040

// flushDenormals saves MXCSR in the frame's two words and sets FTZ and DAZ,
// so that denormal values cost no microcode assists: a float32 product with
// 1% denormal inputs ran 2.8 times slower without, 100% ones 180 times (a
// trained classifier's softmax gradients underflow into that range). It
// clobbers AX; restoreMXCSR undoes it before every return. Go code never
// runs in between (assembly is not preempted asynchronously), so the mode
// cannot leak into other goroutines.
func flushDenormals(w func(string, ...any)) {
	w("STMXCSR saved-4(SP)")
	w("MOVL saved-4(SP), AX")
	w("ORL $0x%x, AX", mxcsrFlush)
	w("MOVL AX, flush-8(SP)")
	w("LDMXCSR flush-8(SP)")
}

// restoreMXCSR restores the MXCSR saved by flushDenormals.
func restoreMXCSR(w func(string, ...any)) {
	w("LDMXCSR saved-4(SP)")
}

// step emits one k step reading the u-th group of the current A and B pointers.
func (k kernel) step(w func(string, ...any), u int) {
	vb := k.isa.width * 4
	for v := 0; v < k.nv; v++ {
		switch {
		case !k.colB:
			w("VMOVUPS %d(DI), %s", (u*k.nr())*4+v*vb, k.bvec(v))
		case u%2 == 0: // DI advances by two rows after every odd step
			w("VMOVUPS %d(DI), %s", v*vb, k.bvec(v))
		default:
			w("VMOVUPS %d(DI)(R11*1), %s", v*vb, k.bvec(v))
		}
	}
	for r := 0; r < k.rows; r++ {
		bc := k.bcast(r)
		w("VBROADCASTSS %s, %s", k.aAddr(u, r), bc)
		for v := 0; v < k.nv; v++ {
			w("VFMADD231PS %s, %s, %s", k.bvec(v), bc, k.acc(r, v))
		}
	}
}

// copyPiece emits the copy of one 128-byte piece of the job held in R13
// (source), R14 (destination), R15 and BX (their strides) and AX (pieces
// left), through the broadcast registers, which are free between k steps;
// it prefetches the source of the piece copyPrefetchPieces ahead, at R12.
func (k kernel) copyPiece(s *bytes.Buffer, w func(string, ...any), sym string) {
	w("TESTQ AX, AX")
	w("JZ %s_copied", sym)
	w("PREFETCHT0 (R12)") // the three lines a piece may touch
	w("PREFETCHT0 64(R12)")
	w("PREFETCHT0 127(R12)")
	w("ADDQ R15, R12")
	w("VMOVUPS (R13), %s", k.bcast(0))
	w("VMOVUPS 64(R13), %s", k.bcast(1))
	w("VMOVUPS %s, (R14)", k.bcast(0))
	w("VMOVUPS %s, 64(R14)", k.bcast(1))
	w("ADDQ R15, R13")
	w("ADDQ BX, R14")
	w("DECQ AX")
	fmt.Fprintf(s, "%s_copied:\n", sym)
}

// inPlaceA reports whether the kernel reads A in place (rowA or colA),
// with lda in its pfA argument.
func (k kernel) inPlaceA() bool { return k.rowA || k.colA }

// aAddr is the address of A's element in row r at the u-th k step from the
// current A pointers.
func (k kernel) aAddr(u, r int) string {
	if k.copying {
		return fmt.Sprintf("%d(SI)", u*4+r*copyARowBytes)
	}
	if k.colA { // SI advances by two k steps after every odd step
		if u%2 == 0 {
			return fmt.Sprintf("%d(SI)", r*4)
		}
		return fmt.Sprintf("%d(SI)(R12*1)", r*4)
	}
	if !k.rowA {
		return fmt.Sprintf("%d(SI)", (u*k.mr+r)*4)
	}
	base := rowABases[r/4]
	switch r % 4 {
	case 0:
		return fmt.Sprintf("%d(%s)", u*4, base)
	case 1:
		return fmt.Sprintf("%d(%s)(R12*1)", u*4, base)
	case 2:
		return fmt.Sprintf("%d(%s)(R12*2)", u*4, base)
	}
	return fmt.Sprintf("%d(%s)(AX*1)", u*4, base)
}

// advanceA moves the A pointers on by steps k steps.
func (k kernel) advanceA(w func(string, ...any), steps int) {
	if k.copying {
		w("ADDQ $%d, SI", steps*4)
		return
	}
	if k.colA { // the unrolled loop advances SI as it goes
		if steps == 1 {
			w("ADDQ R12, SI")
		}
		return
	}
	if !k.rowA {
		w("ADDQ $%d, SI", steps*k.mr*4)
		return
	}
	for i := 0; i < len(rowABases) && 4*i < k.rows; i++ {
		w("ADDQ $%d, %s", steps*4, rowABases[i])
	}
}

// storeRows walks the C rows with R10, calling pre (if any) before each store.
func (k kernel) storeRows(w func(string, ...any), pre func(r, v int, addr string)) {
	vb := k.isa.width * 4
	w("MOVQ DX, R10")
	for r := 0; r < k.rows; r++ {
		for v := 0; v < k.nv; v++ {
			addr := fmt.Sprintf("%d(R10)", v*vb)
			if pre != nil {
				pre(r, v, addr)
			}
			w("VMOVUPS %s, %s", k.acc(r, v), addr)
		}
		if r+1 < k.rows {
			w("ADDQ R8, R10")
		}
	}
}

func log2(n int) int {
	l := 0
	for 1<<l < n {
		l++
	}
	if 1<<l != n {
		panic(fmt.Sprintf("asmgen: unroll %d is not a power of two", n))
	}
	return l
}
