package spv

// SPV_KHR_float_controls declarations that tools/spirv adds to every kernel.
const (
	opExtension                  = 10
	opExecutionMode              = 16
	opCapability                 = 17
	capSignedZeroInfNanPreserve  = 4466
	modeSignedZeroInfNanPreserve = 4461
	floatControlsExtension       = "SPV_KHR_float_controls"
)

// WithoutFloatControls returns a copy of a module (words in host order)
// without the SignedZeroInfNanPreserve capability and execution modes and
// the SPV_KHR_float_controls extension, for a device that lacks
// shaderSignedZeroInfNanPreserveFloat32 (a module may not declare what the
// device does not support). Other words are copied unchanged; a module
// without them comes back equal.
func WithoutFloatControls(words []uint32) []uint32 {
	if len(words) < headerWords {
		return append([]uint32(nil), words...)
	}
	out := make([]uint32, 0, len(words))
	out = append(out, words[:headerWords]...)
	for i := headerWords; i < len(words); {
		n := int(words[i] >> 16)
		if n == 0 || i+n > len(words) {
			return append(out, words[i:]...) // malformed: leave the rest to the driver's checks
		}
		op, o := uint16(words[i]), words[i+1:i+n]
		drop := (op == opCapability && len(o) == 1 && o[0] == capSignedZeroInfNanPreserve) ||
			(op == opExtension && LiteralString(o) == floatControlsExtension) ||
			(op == opExecutionMode && len(o) >= 2 && o[1] == modeSignedZeroInfNanPreserve)
		if !drop {
			out = append(out, words[i:i+n]...)
		}
		i += n
	}
	return out
}
