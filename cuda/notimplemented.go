package cuda

import "errors"

// ErrNotImplemented is wrapped by the kernel kinds the backend lacks so far,
// and by kernels beyond what the generated kernels handle yet (more
// parameters than a launch can pass).
var ErrNotImplemented = errors.New("not implemented yet")
