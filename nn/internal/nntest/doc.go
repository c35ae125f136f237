// Package nntest holds the helpers that the nn packages' tests share: a
// loop over every available backend, seeded random inputs that print their
// seed, and the Fashion-MNIST dataset or a skip saying why it is missing.
package nntest
