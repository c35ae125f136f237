//go:build cgo && linux

package cuda

import "fmt"

// notImplemented says that kind does not exist in this backend yet.
func notImplemented(kind string) error { return fmt.Errorf("cuda: %s %w", kind, ErrNotImplemented) }
