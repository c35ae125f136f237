// Command opsdoc writes docs/ops.md, the table of program ops and how each
// backend runs them, from tensor/device's op table.
//
// Usage:
//
//	go run ./tools/opsdoc [-out docs/ops.md] [-check]
//
// With -check nothing is written: the command exits with status 1 when the
// file differs from what the op table gives (CI runs it; so does the
// package's test).
package main
