//go:build cgo && linux

package webgpu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdarg.h>

typedef void (*sfWlLogFunc)(const char *fmt, va_list args);

static void sf_wl_log_silent(const char *fmt, va_list args) {}

// sf_quiet_wayland gives libwayland-client a log handler that drops its
// messages, if the library can be loaded; wgpu's Vulkan probe loads it and
// fails to connect to a compositor on machines without one.
static int sf_quiet_wayland(void) {
	void *lib = dlopen("libwayland-client.so.0", RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		return 0;
	}
	void (*set)(sfWlLogFunc) = (void (*)(sfWlLogFunc))dlsym(lib, "wl_log_set_handler_client");
	if (!set) {
		return 0;
	}
	set(sf_wl_log_silent);
	return 1;
}
*/
import "C"

import "os"

// quietDriverLogs silences what native libraries print to stderr while wgpu
// enumerates adapters ("error: XDG_RUNTIME_DIR is invalid or not set", once
// per adapter probe, from libwayland-client on a machine with no Wayland
// compositor), unless SHADERFLOW_LOG is set. A compute library has no
// window, so the messages say nothing about its work. The library stays
// loaded, which costs nothing: wgpu's probe would load it anyway.
func quietDriverLogs() {
	if os.Getenv("SHADERFLOW_LOG") == "" {
		C.sf_quiet_wayland()
	}
}
