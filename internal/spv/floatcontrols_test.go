package spv

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shaderflow/shaderflow/shaders"
)

const opEntryPoint = 15

// floatControls counts a module's entry points, SignedZeroInfNanPreserve
// capabilities, SPV_KHR_float_controls extensions and 32-bit
// SignedZeroInfNanPreserve modes.
func floatControls(words []uint32) (entries, caps, exts, modes int) {
	for i := headerWords; i < len(words); i += int(words[i] >> 16) {
		op, o := uint16(words[i]), words[i+1:i+int(words[i]>>16)]
		switch {
		case op == opEntryPoint:
			entries++
		case op == opCapability && o[0] == capSignedZeroInfNanPreserve:
			caps++
		case op == opExtension && LiteralString(o) == floatControlsExtension:
			exts++
		case op == opExecutionMode && len(o) == 3 && o[1] == modeSignedZeroInfNanPreserve && o[2] == 32:
			modes++
		}
	}
	return entries, caps, exts, modes
}

func TestKernelsPreserveNaNAndStripWithout(t *testing.T) {
	for _, k := range shaders.Kinds {
		b := base(t, k)
		entries, caps, exts, modes := floatControls(b.words)
		assert.Equal(t, []int{1, 1, entries}, []int{caps, exts, modes}, "kind %s: tools/spirv declares SignedZeroInfNanPreserve 32 on every entry point", k)
		w := WithoutFloatControls(b.words)
		_, caps, exts, modes = floatControls(w)
		assert.Equal(t, []int{0, 0, 0}, []int{caps, exts, modes}, "kind %s", k)
		removed := 2 + 1 + len(StringWords(floatControlsExtension)) + 4*entries
		assert.Equal(t, len(b.words)-removed, len(w), "kind %s: only the declarations go", k)
		_, err := Parse(w)
		assert.NoError(t, err, "kind %s", k)
		validate(t, string(k)+"-nofc", w)
		assert.True(t, slices.Equal(w, WithoutFloatControls(w)), "kind %s: stripping twice changes nothing", k)
	}
}
