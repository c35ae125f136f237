package vec

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFusedWideBlocks runs every opcode the machine has, with a streamed
// and a constant operand where it takes one, over ranges that start and end
// inside and outside the wide machine's 256-float blocks (at LevelAVX512
// light programs run there, their last blocks on the AVX2 machine), and
// checks each output bit for bit against the package's kernels, and that
// nothing outside the range was written.
func TestFusedWideBlocks(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		if !FusedAvailable() {
			t.Skipf("no fused machine at %v", l)
		}
		r := newRand(t)
		const n = 3*fusedWideBlock + 3*FusedBlock
		x, y := randInput(r, n, 10), randInput(r, n, 10)
		var c FusedConst
		for j := range c {
			c[j] = -1.5
		}
		cs := make([]float32, n)
		for j := range cs {
			cs[j] = c[0]
		}
		type step struct {
			name string
			emit func(p *FusedProgram)
			ref  func(dst []float32)
		}
		var steps []step
		for op, f := range fusedUnaryRef {
			if FusedHas(op) {
				steps = append(steps, step{op.String(), func(p *FusedProgram) { p.Op(op) }, func(d []float32) { f(d, x) }})
			}
		}
		for op, f := range fusedBinaryRef {
			for _, rev := range []bool{false, true} {
				code := op + FusedOp(b2i(rev))
				for _, k := range []string{"stream", "const"} {
					operand := y
					emit := func(p *FusedProgram) { p.Stream(code, &y[0]) }
					if k == "const" {
						operand = cs
						emit = func(p *FusedProgram) { p.Const(code, &c) }
					}
					ref := func(d []float32) { f(d, x, operand) }
					if rev {
						ref = func(d []float32) { f(d, operand, x) }
					}
					steps = append(steps, step{fmt.Sprintf("%v %s", code, k), emit, ref})
				}
			}
		}
		for _, s := range steps {
			want := make([]float32, n)
			s.ref(want)
			for _, rg := range [][2]int{{0, n}, {FusedBlock, n}, {0, fusedWideBlock}, {2 * FusedBlock, 2*FusedBlock + fusedWideBlock + FusedBlock}, {fusedWideBlock, n - FusedBlock}} {
				lo, hi := rg[0], rg[1]
				got := make([]float32, n)
				copy(got, poison(n))
				var p FusedProgram
				p.Stream(FusedLoad, &x[0])
				s.emit(&p)
				p.Stream(FusedStore, &got[0])
				p.Op(FusedEnd)
				RunFused(&p, lo, hi)
				for j := range n {
					if j < lo || j >= hi {
						require.True(t, sameBits(poison(1)[0], got[j]), "%s [%d, %d): wrote element %d", s.name, lo, hi, j)
					}
				}
				requireSame(t, want[lo:hi], got[lo:hi], fmt.Sprintf("%s over [%d, %d)", s.name, lo, hi))
			}
		}
	})
}
