//go:build amd64 && !purego

package vec

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestAVX2UsesOnlyAVX2Registers guards against the register allocator of
// the generator (which knows 32 vector registers) giving an AVX2 kernel a
// register that only AVX-512 has: the assembler would encode it with EVEX
// and the kernel would fault on AVX2-only CPUs.
func TestAVX2UsesOnlyAVX2Registers(t *testing.T) {
	src, err := os.ReadFile("kernels_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	high := regexp.MustCompile(`\b([XYZ](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b`)
	fn := ""
	for i, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "TEXT ") {
			fn = strings.Fields(line)[1]
			continue
		}
		if strings.Contains(fn, "AVX2(") && high.MatchString(line) {
			t.Errorf("kernels_amd64.s:%d: %s uses %s: %s", i+1, fn, high.FindString(line), strings.TrimSpace(line))
		}
	}
}
