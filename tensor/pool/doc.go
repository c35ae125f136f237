// Package pool is Shaderflow's caching allocator: one Pool per opened device
// sits between the tensor front end and the backend's raw Alloc and Free.
//
// Requests are rounded up to a size class (see ClassSize): multiples of 256
// bytes up to 2 KiB, then eight classes per power of two, so a block wastes
// less than 256 bytes or less than 12.5% of the request, whichever is larger.
// A freed block goes to its class's free list and is handed out again by the
// next request of the same class without a device call. Cached blocks are
// returned to the device by EmptyCache, when the device runs out of memory (the
// pool empties its cache and retries once), or, oldest first, when an optional
// cap on cached bytes is exceeded.
//
// Requests larger than the device's largest single allocation
// (Info().Limits.MaxAllocBytes) fail at once with an error wrapping
// ErrTooLarge, without calling the device.
//
// A Pool is safe for concurrent use. Free never calls into the device, so
// finalizers and other goroutines may free blocks while the front end is
// using the device: buffers that must go back to the device are released by
// the next Alloc or EmptyCache, on the caller's goroutine.
//
// Stats reports allocations, reuses, the reuse rate, bytes in use, the peak,
// and reserved and cached bytes; a training loop whose stats stay flat from
// step to step holds device memory flat.
package pool
