// Package ref is Shaderflow's float64 reference implementation: a small
// N-dimensional array type with shapes, strides, zero-copy views and NumPy
// broadcasting, and every tensor operation the front end offers (elementwise
// math, reductions, softmax, matmul, convolution, pooling, normalization,
// indexing), written plainly in float64 so that its results can serve as the
// expected values of the conformance suite.
//
// The package deliberately imports nothing from Shaderflow: it is an
// independent second implementation, so that a shared bug cannot hide in
// both the code under test and its oracle. It favours clarity over speed
// (loops over multi-indices), yet stays fast enough for matrices of a few
// hundred thousand elements.
//
// Programmer errors (shapes that do not fit, bad axes) panic with a message
// naming the operation and the shapes, like the front end does.
package ref
