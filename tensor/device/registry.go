package device

import (
	"slices"
	"sync"
)

// Backend is a registered kind of device.
type Backend interface {
	// Name is the backend's name as tensor.Open accepts it: "cpu", "vulkan", ...
	Name() string
	// Adapters lists the devices this backend can open. When none is
	// available it returns an error wrapping ErrUnavailable that says why
	// and what to install.
	Adapters() ([]Info, error)
	// Open opens adapter index (an index into Adapters).
	Open(index int) (Device, error)
}

var (
	registryMu sync.Mutex
	registry   []Backend
)

// Register adds a backend. Backends call it from an init function; a second
// backend with the same name panics.
func Register(b Backend) {
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, r := range registry {
		if r.Name() == b.Name() {
			panic("device: backend " + b.Name() + " registered twice")
		}
	}
	registry = append(registry, b)
}

// Backends returns the registered backends in registration order.
func Backends() []Backend {
	registryMu.Lock()
	defer registryMu.Unlock()
	return slices.Clone(registry)
}

// Lookup returns the backend registered under name.
func Lookup(name string) (Backend, bool) {
	for _, b := range Backends() {
		if b.Name() == name {
			return b, true
		}
	}
	return nil, false
}
