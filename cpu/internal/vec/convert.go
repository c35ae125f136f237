package vec

// Conversions between float32 and the 16-bit storage types. Each is
// bit-identical to the scalar function of the same name in tensor/device:
// float32 to float16 and to bfloat16 round to nearest even, a NaN becomes a
// quiet NaN of the same sign (float16: 0x7e00; bfloat16: the top 16 bits with
// the quiet bit set); widening is exact and keeps NaN payloads.

// Float32ToFloat16 converts src to IEEE binary16 bits in dst.
func Float32ToFloat16(dst []uint16, src []float32) {
	checkLen("Float32ToFloat16", "dst, src", len(dst), len(src))
	current.toHalf(dst, src)
}

// Float16ToFloat32 converts IEEE binary16 bits in src to float32 in dst.
func Float16ToFloat32(dst []float32, src []uint16) {
	checkLen("Float16ToFloat32", "dst, src", len(dst), len(src))
	current.fromHalf(dst, src)
}

// Float32ToBFloat16 converts src to bfloat16 bits in dst.
func Float32ToBFloat16(dst []uint16, src []float32) {
	checkLen("Float32ToBFloat16", "dst, src", len(dst), len(src))
	current.toBFloat(dst, src)
}

// BFloat16ToFloat32 converts bfloat16 bits in src to float32 in dst.
func BFloat16ToFloat32(dst []float32, src []uint16) {
	checkLen("BFloat16ToFloat32", "dst, src", len(dst), len(src))
	current.fromBFloat(dst, src)
}
