//go:build cgo

package vulkan

// floatControlsExtension is the device extension that lets a module declare
// the SignedZeroInfNanPreserve execution mode (core in Vulkan 1.2; the
// instance asks for 1.1, so it is enabled as an extension).
//
// Without that mode a Vulkan driver may assume that no float is NaN or
// infinite: lavapipe folds x - x to 0 for x NaN or infinite, and NVIDIA's
// driver lost NaN in identities of the conformance case. tools/spirv
// declares SignedZeroInfNanPreserve for 32-bit floats on every kernel.
// Where the device offers the extension with
// shaderSignedZeroInfNanPreserveFloat32, open enables it and the modules
// keep the declaration, so IEEE NaN and infinity semantics are the
// driver's obligation. Elsewhere (a module may not declare what the device
// lacks) newModule removes the declaration, and what is left are the
// bit-tested guards of ops.wgsl's add, sub, mul and div, which cover the
// folds seen (docs/limits-gpu.md): a driver there may still fold other
// expressions.
const floatControlsExtension = "VK_KHR_shader_float_controls"

// noFloatControlsForTests makes open treat the device as lacking
// shaderSignedZeroInfNanPreserveFloat32 (tests of the fallback).
var noFloatControlsForTests bool
