package tensor

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// BackendStatus describes one registered backend for Backends.
type BackendStatus struct {
	Name      string
	Available bool
	Reason    string        // why the backend is unavailable, when it is not
	Adapters  []device.Info // the devices it can open
}

// Backends lists every registered backend with its adapters, or why it has
// none. Import github.com/shaderflow/shaderflow/tensor/backends to register
// them all.
func Backends() []BackendStatus {
	var out []BackendStatus
	for _, b := range device.Backends() {
		st := BackendStatus{Name: b.Name()}
		ad, err := b.Adapters()
		switch {
		case err != nil:
			st.Reason = err.Error()
		case len(ad) == 0:
			st.Reason = "no adapters found"
		default:
			st.Available, st.Adapters = true, ad
		}
		out = append(out, st)
	}
	return out
}

// autoOrder is the backend preference of Open("auto"): real GPUs first
// (a backend is skipped when its libraries are missing, or when the program
// does not import it).
var autoOrder = []string{"cuda", "vulkan", "webgpu", "cpu"}

// Open opens a device: "auto" (or ""), a registered backend's name ("cpu",
// "vulkan", "webgpu") for its preferred adapter, or "name:N" for adapter N.
// The environment variable SHADERFLOW_BACKEND overrides "auto". Auto prefers
// a hardware GPU and never picks a software-emulated one (lavapipe,
// llvmpipe, SwiftShader): those open only when named. Errors list what is
// available.
func Open(name string) (*Device, error) {
	if name == "" || name == "auto" {
		if env := os.Getenv("SHADERFLOW_BACKEND"); env != "" && env != "auto" {
			name = env
		} else {
			b, idx, why, err := pickAuto()
			if err != nil {
				return nil, err
			}
			d, err := openBackend(b, idx)
			if d != nil {
				d.why = why
			}
			return d, err
		}
	}
	bname, idx := name, -1
	if i := strings.IndexByte(name, ':'); i >= 0 {
		n, err := strconv.Atoi(name[i+1:])
		if err != nil || n < 0 {
			return nil, fmt.Errorf("tensor.Open: bad adapter index in %q", name)
		}
		bname, idx = name[:i], n
	}
	b, ok := device.Lookup(bname)
	if !ok {
		return nil, fmt.Errorf("tensor.Open: unknown backend %q; %s", bname, availableList())
	}
	ad, err := b.Adapters()
	if err != nil {
		return nil, fmt.Errorf("tensor.Open(%q): %w; %s", name, err, availableList())
	}
	if idx < 0 {
		idx = bestAdapter(ad)
	}
	if idx >= len(ad) {
		return nil, fmt.Errorf("tensor.Open(%q): backend %s has %d adapter(s); %s", name, bname, len(ad), availableList())
	}
	d, err := openBackend(b, idx)
	if d != nil {
		d.why = "requested " + name
	}
	return d, err
}

// MustOpen is Open that panics on error, for examples and tests.
func MustOpen(name string) *Device {
	d, err := Open(name)
	if err != nil {
		panic(err)
	}
	return d
}

func openBackend(b device.Backend, idx int) (*Device, error) {
	raw, err := b.Open(idx)
	if err != nil {
		return nil, fmt.Errorf("tensor.Open: %s:%d: %w", b.Name(), idx, err)
	}
	return newDevice(raw), nil
}

// bestAdapter returns the index of the adapter of the most preferred kind
// (device.Kind.Rank), the first of them on a tie.
func bestAdapter(ad []device.Info) int {
	best := 0
	for i, a := range ad {
		if a.Kind.Rank() < ad[best].Kind.Rank() {
			best = i
		}
	}
	return best
}

// pickAuto chooses the backend and adapter for "auto" and says why.
func pickAuto() (device.Backend, int, string, error) {
	var skipped []string
	for _, name := range autoOrder {
		b, ok := device.Lookup(name)
		if !ok {
			continue
		}
		ad, err := b.Adapters()
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		for i, a := range ad {
			if a.Kind.IsHardwareGPU() || (name == "cpu" && a.Kind == device.KindCPU) {
				why := "auto: " + a.Kind.String() + " " + a.Name
				if len(skipped) > 0 {
					why += " (skipped " + strings.Join(skipped, "; ") + ")"
				}
				return b, i, why, nil
			}
			skipped = append(skipped, fmt.Sprintf("%s:%d %q is a %s", name, i, a.Name, a.Kind))
		}
	}
	return nil, 0, "", errors.New("tensor.Open(auto): no usable backend; " + availableList() + "; import github.com/shaderflow/shaderflow/tensor/backends to register them")
}

func availableList() string {
	var parts []string
	for _, st := range Backends() {
		if st.Available {
			names := make([]string, len(st.Adapters))
			for i, a := range st.Adapters {
				names[i] = fmt.Sprintf("%s:%d %s (%s)", st.Name, i, a.Name, a.Kind)
			}
			parts = append(parts, strings.Join(names, ", "))
		} else {
			parts = append(parts, st.Name+" unavailable: "+st.Reason)
		}
	}
	if len(parts) == 0 {
		return "no backends registered"
	}
	return "backends: " + strings.Join(parts, "; ")
}
