// Package checked does size arithmetic that reports overflow instead of
// wrapping: element counts, byte sizes, strides and output sizes of windows.
// Every multiplication of shape dimensions in the module goes through it, so
// that a hostile shape is refused rather than turned into a small one.
package checked
