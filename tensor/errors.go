package tensor

import (
	"errors"
	"fmt"
	"strings"
)

// UsageError is the value of a panic caused by a programmer error: shapes that
// cannot broadcast, an axis out of range, tensors on different devices.
type UsageError struct {
	Op  string
	Msg string
}

// Error returns "tensor.Op: message" ("pkg.Op: message" when Op names its
// package, as nn's errors do).
func (e *UsageError) Error() string {
	if strings.Contains(e.Op, ".") {
		return e.Op + ": " + e.Msg
	}
	return "tensor." + e.Op + ": " + e.Msg
}

// usage panics with a UsageError for op.
func usage(op, format string, args ...any) {
	panic(&UsageError{Op: op, Msg: fmt.Sprintf(format, args...)})
}

// Catch runs fn and returns the UsageError it panicked with, if any, as an
// error: the helper for servers that must not die on a bad request. Other
// panics are re-raised.
func Catch(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			var ue *UsageError
			if e, ok := r.(error); ok && errors.As(e, &ue) {
				err = ue
				return
			}
			panic(r)
		}
	}()
	fn()
	return nil
}
