package vec

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fusedRef maps each machine op to the package kernel it must match.
var (
	fusedUnaryRef = map[FusedOp]func(dst, x []float32){
		FusedNeg: Neg, FusedAbs: Abs, FusedRelu: Relu, FusedSqrt: Sqrt, FusedRsqrt: Rsqrt, FusedRecip: Recip,
		FusedExp: Exp, FusedTanh: Tanh, FusedSigmoid: Sigmoid,
	}
	fusedBinaryRef = map[FusedOp]func(dst, a, b []float32){
		FusedAdd: Add, FusedSub: Sub, FusedMul: Mul, FusedDiv: Div, FusedMaximum: Maximum, FusedMinimum: Minimum,
		FusedKeepPositive: keepPositiveRef,
	}
)

// keepPositiveRef is KeepPositive's meaning: a where b > 0, else +0.
func keepPositiveRef(dst, a, b []float32) {
	for i := range dst {
		v := float32(0)
		if b[i] > 0 {
			v = a[i]
		}
		dst[i] = v
	}
}

// TestFusedMatchesKernels runs random programs on the machine (loads,
// binary ops in both orders on inputs and constants, unary ops, cached and
// streaming stores to several outputs) and checks every output bit for bit
// against the same steps done with the package's kernels, over whole
// arrays and over a sub-range.
func TestFusedMatchesKernels(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		if !FusedAvailable() {
			t.Skipf("no fused machine at %v", l)
		}
		checkFused(t)
	})
}

func checkFused(t *testing.T) {
	r := newRand(t)
	var unaries, binaries []FusedOp
	for op := range fusedUnaryRef {
		if FusedHas(op) {
			unaries = append(unaries, op)
		}
	}
	for op := range fusedBinaryRef {
		binaries = append(binaries, op)
	}
	for trial := range 300 {
		n := FusedBlock * (1 + r.IntN(40))
		ins := make([][]float32, 1+r.IntN(3))
		for k := range ins {
			ins[k] = randInput(r, n, 10)
		}
		consts := make([]FusedConst, 3)
		for k := range consts {
			v := randInput(r, 1, 10)[0]
			for j := range consts[k] {
				consts[k][j] = v
			}
		}
		var p FusedProgram
		var want, got [][]float32
		acc := make([]float32, n)
		var steps []string
		p.Stream(FusedLoad, &ins[0][0])
		p.Prefetch()
		copy(acc, ins[0])
		for range 1 + r.IntN(8) {
			if r.IntN(3) == 0 {
				op := unaries[r.IntN(len(unaries))]
				p.Op(op)
				fusedUnaryRef[op](acc, acc)
				steps = append(steps, op.String())
			} else {
				op := binaries[r.IntN(len(binaries))]
				rev := r.IntN(2) == 0
				var operand []float32
				if k := r.IntN(len(ins) + 1); k < len(ins) {
					operand = ins[k]
					p.Stream(op+FusedOp(b2i(rev)), &ins[k][0])
					if r.IntN(2) == 0 {
						p.Prefetch()
					}
				} else {
					c := &consts[r.IntN(len(consts))]
					operand = make([]float32, n)
					for j := range operand {
						operand[j] = c[0]
					}
					p.Const(op+FusedOp(b2i(rev)), c)
				}
				if rev {
					fusedBinaryRef[op](acc, operand, acc)
				} else {
					fusedBinaryRef[op](acc, acc, operand)
				}
				steps = append(steps, fmt.Sprintf("%v rev=%v", op, rev))
			}
			if r.IntN(3) == 0 || len(got) == 0 {
				out := aligned64(n)
				copy(out, poison(n))
				if r.IntN(2) == 0 {
					p.Stream(FusedStoreNT, &out[0])
				} else {
					p.Stream(FusedStore, &out[0])
				}
				got, want = append(got, out), append(want, append([]float32(nil), acc...))
			}
		}
		p.Op(FusedEnd)
		lo := 0
		if r.IntN(3) == 0 {
			lo = FusedBlock * r.IntN(n/FusedBlock)
		}
		RunFused(&p, lo, n)
		for k := range got {
			for j := range lo {
				require.True(t, sameBits(poison(1)[0], got[k][j]), "trial %d: wrote element %d before lo=%d", trial, j, lo)
			}
			requireSame(t, want[k][lo:], got[k][lo:], fmt.Sprintf("trial %d output %d, steps %v", trial, k, steps))
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestFusedHas checks which opcodes each level's machine has.
func TestFusedHas(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		for op := FusedEnd; op < numFused; op++ {
			want := l == LevelAVX512 || l == LevelAVX2 && op != FusedExp && op != FusedTanh && op != FusedSigmoid
			assert.Equal(t, want, FusedHas(op), "%v at %v", op, l)
		}
		assert.Equal(t, l == LevelAVX2 || l == LevelAVX512, FusedAvailable()) // none at LevelGo and LevelNEON
	})
}

func TestFusedPanics(t *testing.T) {
	if !FusedAvailable() {
		assert.Panics(t, func() { RunFused(&FusedProgram{}, 0, 0) })
		return
	}
	var p FusedProgram
	assert.PanicsWithValue(t, "vec.RunFused: the program does not end with End", func() { RunFused(&p, 0, 64) })
	p.Op(FusedEnd)
	assert.PanicsWithValue(t, "vec.RunFused: range [1, 64) is not in whole blocks of 64", func() { RunFused(&p, 1, 64) })
	assert.Equal(t, "Relu", FusedRelu.String())
	assert.PanicsWithValue(t, "vec.FusedProgram.Prefetch: the last instruction has no stream operand", p.Prefetch)
	assert.Equal(t, 1, p.Len())
}

// TestFusedShiftedPeriod runs x + b, where b repeats every period floats,
// with b streamed from a buffer holding one period and shifted back a
// period at a time on a copy of the program, and checks the result against
// Add over b written out in full.
func TestFusedShiftedPeriod(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		if !FusedAvailable() {
			t.Skipf("no fused machine at %v", l)
		}
		r := newRand(t)
		const period, periods = 3 * FusedBlock, 5
		x, b := randInput(r, period*periods, 10), randInput(r, period, 10)
		full := make([]float32, len(x))
		for i := range full {
			full[i] = b[i%period]
		}
		want, got := make([]float32, len(x)), make([]float32, len(x))
		Add(want, x, full)
		var shared, own FusedProgram
		shared.Stream(FusedLoad, &x[0])
		shared.Stream(FusedAdd, &b[0])
		shared.Stream(FusedStore, &got[0])
		shared.Op(FusedEnd)
		own.CopyFrom(&shared)
		for k := range periods {
			RunFused(&own, k*period, (k+1)*period)
			own.Shift(1, -period)
		}
		for i := range want {
			require.True(t, sameBits(want[i], got[i]), "element %d: got %v, want %v", i, got[i], want[i])
		}
		assert.Equal(t, shared.Len(), own.Len())
		assert.PanicsWithValue(t, "vec.FusedProgram.Shift: instruction 3 has no stream operand", func() { own.Shift(3, 1) })
		assert.PanicsWithValue(t, "vec.FusedProgram.Shift: instruction 4 has no stream operand", func() { own.Shift(4, 1) })
	})
}
