package gputest

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// RequireEnv is the environment variable naming the backends whose tests
// must not skip: a comma-separated list of names, or "all".
const RequireEnv = "SHADERFLOW_REQUIRE_BACKENDS"

// Required reports whether RequireEnv names backend.
func Required(backend string) bool {
	for _, s := range strings.Split(os.Getenv(RequireEnv), ",") {
		if s = strings.TrimSpace(s); s == "all" || s == backend {
			return true
		}
	}
	return false
}

// Open opens adapter 0 of the named registered backend and closes it when
// the test ends. When the backend has no adapter the test skips with the
// reason, or fails when RequireEnv names the backend.
func Open(t testing.TB, backend string) device.Device {
	t.Helper()
	b, ok := device.Lookup(backend)
	if !ok {
		t.Fatalf("backend %q is not registered", backend)
	}
	unavailable := func(err error) {
		t.Helper()
		if Required(backend) || !errors.Is(err, device.ErrUnavailable) {
			t.Fatalf("%v", err)
		}
		t.Skipf("%v", err)
	}
	infos, err := b.Adapters()
	if err != nil {
		unavailable(err)
	}
	d, err := b.Open(0)
	if err != nil {
		unavailable(err)
	}
	t.Logf("%s", infos[0])
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d
}
