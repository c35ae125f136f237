package vec

import (
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/tensor/device"
)

var seedFlag = flag.Uint64("vec.seed", 0, "random seed (0: from the clock)")

// newRand returns a generator and logs its seed so that a failure can be
// replayed with -vec.seed.
func newRand(t testing.TB) *rand.Rand {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -vec.seed=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// forEachLevel runs f as a subtest at every level this machine has.
func forEachLevel(t *testing.T, f func(t *testing.T, l Level)) {
	for _, l := range Available() {
		t.Run(l.String(), func(t *testing.T) {
			prev := SetLevel(l)
			defer SetLevel(prev)
			f(t, l)
		})
	}
}

// unaryOps lists the ops this package has unary kernels for.
func unaryOps() []device.Op {
	var ops []device.Op
	for op, f := range goUnaryFns {
		if f != nil {
			ops = append(ops, device.Op(op))
		}
	}
	return ops
}

// binaryOps lists the ops this package has binary kernels for.
func binaryOps() []device.Op {
	var ops []device.Op
	for op, f := range goBinaryFns {
		if f != nil {
			ops = append(ops, device.Op(op))
		}
	}
	return ops
}
