package cpu

import (
	"encoding/binary"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// intSumRows returns, for an Int64 sum whose prologue only loads (and
// perhaps casts to Int64) one row-major Int32, Bool, Uint8 or Int8 input
// over the kernel's space, the exact sum of each run of r elements; nil
// otherwise. Counting (a Bool's sum) and summing labels take this path
// instead of the wide interpreter's per-element steps.
func intSumRows(k *device.ReduceKernel, ins []wideView, space []int) func(out, r int) int64 {
	code := k.Prologue.Code
	if k.Op != device.ReduceSum || k.Accumulator() != device.Int64 || len(code) == 0 || len(code) > 2 ||
		code[0].Op != device.OpInput || int(k.Prologue.Outputs[0]) != len(code)-1 {
		return nil
	}
	if len(code) == 2 && (code[1].Op != device.OpCast || code[1].Args[0] != 0) {
		return nil
	}
	in := ins[code[0].Index]
	if !slices.Equal(in.v.Shape, space) || !slices.Equal(in.v.Strides, device.ContiguousStrides(space)) {
		return nil
	}
	base := in.v.Offset
	switch in.v.DType {
	case device.Int32:
		return func(out, r int) int64 {
			b := in.data[4*(base+out*r) : 4*(base+(out+1)*r)]
			var s int64
			for i := 0; i < len(b); i += 4 {
				s += int64(int32(binary.LittleEndian.Uint32(b[i:])))
			}
			return s
		}
	case device.Bool, device.Uint8:
		return func(out, r int) int64 {
			var s int64
			for _, v := range in.data[base+out*r : base+(out+1)*r] {
				s += int64(v)
			}
			return s
		}
	case device.Int8:
		return func(out, r int) int64 {
			var s int64
			for _, v := range in.data[base+out*r : base+(out+1)*r] {
				s += int64(int8(v))
			}
			return s
		}
	}
	return nil
}
