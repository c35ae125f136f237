package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// packers lists the packers of every supported level with a name.
func packers() map[string]*packer {
	m := map[string]*packer{}
	for _, l := range supportedLevels() {
		m[l.String()] = implFor(l).pack
	}
	return m
}

// TestPackers checks every packer against the definition of the packed
// layout, on odd sizes, offsets and widths, with poisoned destinations.
func TestPackers(t *testing.T) {
	seed := baseSeed(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	for name, pk := range packers() {
		for trial := 0; trial < 200; trial++ {
			w := 1 + rng.IntN(64)
			width := 1 + rng.IntN(w)
			depth := rng.IntN(70)
			ld := max(depth, w) + rng.IntN(5)
			off := rng.IntN(7)
			src := make([]float32, off+ld*max(width, depth)+w*4+5)
			for i := range src {
				src[i] = float32(i + 1)
			}
			msg := fmt.Sprintf("packer=%s seed=%d w=%d width=%d depth=%d ld=%d off=%d", name, seed, w, width, depth, ld, off)

			dst := poisoned(depth*w + 3)
			pk.strided(dst, w, src, ld, off, depth, width)
			for p := 0; p < depth; p++ {
				for r := 0; r < w; r++ {
					want := float32(0)
					if r < width {
						want = src[off+r*ld+p]
					}
					require.Equal(t, want, dst[p*w+r], "strided %s p=%d r=%d", msg, p, r)
				}
			}
			require.Equal(t, poisoned(3), dst[depth*w:], "strided wrote past its groups: %s", msg)

			np := 1 + rng.IntN(3)
			pstride := depth*w + rng.IntN(3)
			ld2 := np*w + rng.IntN(5)
			src2 := src[:min(len(src), off+max(depth-1, 0)*ld2+np*w)]
			if len(src2) < off+max(depth-1, 0)*ld2+np*w {
				src2 = make([]float32, off+depth*ld2+np*w)
				for i := range src2 {
					src2[i] = float32(i + 1)
				}
			}
			dst = poisoned((np-1)*pstride + depth*w + 3)
			pk.panels(dst, w, pstride, src2, ld2, off, depth, np)
			for q := 0; q < np; q++ {
				for p := 0; p < depth; p++ {
					for c := 0; c < w; c++ {
						require.Equal(t, src2[off+p*ld2+q*w+c], dst[q*pstride+p*w+c], "panels %s np=%d q=%d p=%d c=%d", msg, np, q, p, c)
					}
				}
			}
			if depth > 0 {
				require.Equal(t, poisoned(3), dst[(np-1)*pstride+depth*w:], "panels wrote past its groups: %s", msg)
			}
		}
	}
}

func poisoned(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = -7
	}
	return s
}
