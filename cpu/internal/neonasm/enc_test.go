package neonasm

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// samples returns instructions of every form with varied registers.
func samples() []string {
	rng := rand.New(rand.NewPCG(1, 2))
	v := func() int { return rng.IntN(32) }
	var ins []string
	for name, o := range ops {
		for range 4 {
			switch o.form {
			case same3:
				for _, k := range o.kinds {
					ins = append(ins, fmt.Sprintf("%s v%d.%s, v%d.%s, v%d.%s", name, v(), k, v(), k, v(), k))
				}
			case misc2:
				for _, k := range o.kinds {
					ins = append(ins, fmt.Sprintf("%s v%d.%s, v%d.%s", name, v(), k, v(), k))
				}
			case dupElem:
				ins = append(ins, fmt.Sprintf("%s v%d.4s, v%d.s[%d]", name, v(), v(), rng.IntN(4)))
			case across:
				ins = append(ins, fmt.Sprintf("%s s%d, v%d.4s", name, v(), v()))
			case widen:
				src := "2s"
				if strings.HasSuffix(name, "2") {
					src = "4s"
				}
				ins = append(ins, fmt.Sprintf("%s v%d.2d, v%d.%s", name, v(), v(), src))
				half := map[string]string{"2s": "4h", "4s": "8h"}[src]
				ins = append(ins, fmt.Sprintf("%s v%d.4s, v%d.%s", name, v(), v(), half))
			case narrow:
				dst := "4h"
				if strings.HasSuffix(name, "2") {
					dst = "8h"
				}
				ins = append(ins, fmt.Sprintf("%s v%d.%s, v%d.4s", name, v(), dst, v()))
			}
		}
	}
	for range 4 {
		ins = append(ins, fmt.Sprintf("dup v%d.2d, v%d.d[%d]", v(), v(), rng.IntN(2)), fmt.Sprintf("faddp d%d, v%d.2d", v(), v()))
	}
	for name, sh := range shiftOps {
		for _, n := range []int{sh.min, sh.max, (sh.min + sh.max) / 2} {
			ins = append(ins, fmt.Sprintf("%s v%d.4s, v%d.4s, #%d", name, v(), v(), n))
		}
	}
	for range 8 {
		t := v()
		ins = append(ins, fmt.Sprintf("ld4 {v%d.s, v%d.s, v%d.s, v%d.s}[%d], [x%d]", t, (t+1)%32, (t+2)%32, (t+3)%32, rng.IntN(4), rng.IntN(31)))
	}
	for name := range elemOps {
		for range 8 {
			ins = append(ins, fmt.Sprintf("%s v%d.4s, v%d.4s, v%d.s[%d]", name, v(), v(), v(), rng.IntN(4)))
		}
	}
	return ins
}

// TestEncodingsMatchLLVM checks every form against llvm-mc.
func TestEncodingsMatchLLVM(t *testing.T) {
	mc := LLVMMC()
	if mc == "" {
		t.Skip("llvm-mc is not installed")
	}
	ins := samples()
	var asm strings.Builder
	for _, s := range ins {
		asm.WriteString("\t" + Word(s) + "\n")
	}
	bad, err := CheckWords(mc, []byte(asm.String()))
	require.NoError(t, err)
	require.Empty(t, bad)
}

// TestEncodeRejects checks that operands the table does not know are errors.
func TestEncodeRejects(t *testing.T) {
	for _, s := range []string{"fadd v0.8h, v1.8h, v2.8h", "fmaxv d0, v1.2d", "fmla v0.2d, v1.2d, v2.s[1]",
		"frobnicate v0.4s, v1.4s", "fadd v0.4s, v1.4s", "fadd v32.4s, v1.4s, v2.4s", "fadd",
		"ld4 {v1.s, v2.s, v4.s, v5.s}[0], [x3]", "ld4 {v1.s, v2.s, v3.s, v4.s}[4], [x3]", "ld4 {v1.s, v2.s, v3.s, v4.s}[1], [x31]"} {
		_, err := Encode(s)
		require.Error(t, err, s)
	}
}
