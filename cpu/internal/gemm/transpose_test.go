package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTranspose checks Transpose at every level against the definition,
// bit for bit (NaN payloads and negative zeros included), over sizes around
// each level's register tile and leading dimensions wider than the matrix,
// and that nothing outside the destination matrix is written.
func TestTranspose(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	forEachLevel(t, func(t *testing.T) {
		for _, rc := range [][2]int{{1, 1}, {3, 5}, {16, 16}, {17, 33}, {8, 9}, {40, 3}, {2, 70}, {129, 65}} {
			rows, cols := rc[0], rc[1]
			lds, ldd := cols+r.IntN(3), rows+r.IntN(3)
			src := make([]float32, (rows-1)*lds+cols)
			for i := range src {
				src[i] = math.Float32frombits(r.Uint32())
			}
			const poison = 0x7fc0dead
			dst := make([]float32, (cols-1)*ldd+rows)
			for i := range dst {
				dst[i] = math.Float32frombits(poison)
			}
			Transpose(dst, ldd, src, lds, rows, cols)
			for j := range cols {
				for i := range ldd {
					p := j*ldd + i
					if p >= len(dst) {
						break
					}
					want := uint32(poison)
					if i < rows {
						want = math.Float32bits(src[i*lds+j])
					}
					require.Equal(t, want, math.Float32bits(dst[p]), fmt.Sprintf("%d×%d: dst[%d][%d]", rows, cols, j, i))
				}
			}
		}
		assert.PanicsWithValue(t, "gemm.Transpose: 2×3 from 5 floats 3 apart into 6 floats 2 apart",
			func() { Transpose(make([]float32, 6), 2, make([]float32, 5), 3, 2, 3) })
	})
}
