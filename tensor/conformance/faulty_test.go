package conformance_test

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/cpu"
	"github.com/shaderflow/shaderflow/tensor/conformance"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// The suite is itself tested by running it against deliberately broken
// backends: the CPU backend wrapped so that one kind of kernel misbehaves.
// Each must make the suite fail, and the unbroken wrapper must pass.

const faultEnv = "SHADERFLOW_CONFORMANCE_FAULT"

// faults maps each fault to the suite group it is run on and the text the
// failure must contain.
var faults = map[string]struct{ group, want string }{
	"none":         {"unary", ""},
	"unwritten":    {"unary", "got NaN"}, // elementwise kernels leave a slice of their output unwritten
	"perturbed":    {"binary", "differ"}, // elementwise results off by 1e-4 relative in their first element
	"reduce_short": {"reduce", "differ"}, // reductions skip a slice of the reduced elements
}

func init() { device.Register(faultyBackend{}) }

type faultyBackend struct{}

func (faultyBackend) Name() string { return "faulty" }

func (faultyBackend) Adapters() ([]device.Info, error) { return cpu.Backend{}.Adapters() }

func (faultyBackend) Open(index int) (device.Device, error) {
	d, err := cpu.Backend{}.Open(index)
	if err != nil {
		return nil, err
	}
	return &faultyDevice{Device: d, fault: os.Getenv(faultEnv)}, nil
}

// faultyDevice is a CPU device with one fault injected.
type faultyDevice struct {
	device.Device
	fault string
}

// shortDim returns the first dimension of shape larger than one, or -1.
// Shortening it by one (strides kept) leaves a contiguous view a prefix of
// itself, so the kernel stays valid and simply skips the last slice.
func shortDim(shape []int) int { return slices.IndexFunc(shape, func(n int) bool { return n > 1 }) }

// shorten returns shape with dimension d one shorter.
func shorten(shape []int, d int) []int {
	shape = slices.Clone(shape)
	shape[d]--
	return shape
}

// shortenViews returns views with dimension d one shorter.
func shortenViews(vs []device.View, d int) []device.View {
	out := make([]device.View, len(vs))
	for i, v := range vs {
		v.Shape = slices.Clone(v.Shape)
		v.Shape[d]--
		out[i] = v
	}
	return out
}

func (d *faultyDevice) Elementwise(k *device.ElementwiseKernel) error {
	switch {
	case d.fault == "unwritten" && shortDim(k.Shape) >= 0:
		c := *k
		dim := shortDim(k.Shape)
		c.Shape = shorten(k.Shape, dim)
		c.Inputs, c.Outputs = shortenViews(k.Inputs, dim), shortenViews(k.Outputs, dim)
		return d.Device.Elementwise(&c)
	case d.fault == "perturbed":
		if err := d.Device.Elementwise(k); err != nil {
			return err
		}
		for _, o := range k.Outputs {
			if o.DType != device.Float32 || o.NumElements() == 0 {
				continue
			}
			b := make([]byte, 4)
			if err := d.Read(o.Buf, int64(o.Offset)*4, b); err != nil {
				return err
			}
			f := math.Float32frombits(binary.LittleEndian.Uint32(b))
			binary.LittleEndian.PutUint32(b, math.Float32bits(f+1e-4*(float32(math.Abs(float64(f)))+1)))
			if err := d.Write(o.Buf, int64(o.Offset)*4, b); err != nil {
				return err
			}
		}
		return nil
	}
	return d.Device.Elementwise(k)
}

func (d *faultyDevice) Reduce(k *device.ReduceKernel) error {
	if dim := shortDim(k.RedShape); d.fault == "reduce_short" && dim >= 0 {
		c := *k
		c.RedShape = shorten(k.RedShape, dim)
		c.Inputs = shortenViews(k.Inputs, len(k.OutShape)+dim)
		return d.Device.Reduce(&c)
	}
	return d.Device.Reduce(k)
}

// TestFaultyBackend runs the suite on the faulty backend; it runs only when
// TestSuiteCatchesFaults starts it with a fault chosen.
func TestFaultyBackend(t *testing.T) {
	if os.Getenv(faultEnv) == "" {
		t.Skip("run by TestSuiteCatchesFaults")
	}
	conformance.Run(t, "faulty")
}

func TestSuiteCatchesFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the test binary once per fault")
	}
	for fault, f := range faults {
		t.Run(fault, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestFaultyBackend$/^fusion=on$/^"+f.group+"$", "-test.short")
			cmd.Env = append(os.Environ(), faultEnv+"="+fault, "SHADERFLOW_FUSION=1")
			out, err := cmd.CombinedOutput()
			if f.want == "" {
				require.NoError(t, err, "the unbroken wrapper must pass:\n%s", out)
				return
			}
			require.Error(t, err, "the suite passed a backend with fault %q", fault)
			assert.True(t, strings.Contains(string(out), f.want), "fault %q: output lacks %q:\n%s", fault, f.want, out)
		})
	}
}
