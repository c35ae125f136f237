package nn

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/shaderflow/shaderflow/nn/safetensors"
	"github.com/shaderflow/shaderflow/tensor"
)

// ErrMismatch is wrapped by the errors Load returns when a checkpoint does
// not fit the module: a missing or unexpected name, a different shape, or a
// dtype that does not convert (an integer tensor into a float one or back).
var ErrMismatch = errors.New("nn: checkpoint does not match the module")

// SaveOption configures Save.
type SaveOption func(*saveConfig)

type saveConfig struct {
	dtype    tensor.DType // zero: keep each tensor's own type
	metadata map[string]string
}

// SaveAs stores every floating-point tensor as dt (Float32, Float16 or
// BFloat16, rounding to nearest even); integer tensors keep their type.
func SaveAs(dt tensor.DType) SaveOption {
	if !dt.IsFloat() {
		usage("SaveAs", "%s is not a float type", dt)
	}
	return func(c *saveConfig) { c.dtype = dt }
}

// WithMetadata adds string metadata to the file's "__metadata__" (which
// always holds "format": "pt", as PyTorch's safetensors helpers write it).
func WithMetadata(md map[string]string) SaveOption {
	return func(c *saveConfig) { c.metadata = md }
}

// Save writes m's parameters and buffers to path in the safetensors format,
// under their state_dict names, atomically (a temporary file renamed over
// path). A device error while reading the tensors is returned.
func Save(path string, m Module, opts ...SaveOption) error {
	return SaveTensors(path, StateDict(m), opts...)
}

// SaveTensors writes named tensors to path as Save does (for state outside a
// module, such as an optimizer's).
func SaveTensors(path string, state []Named, opts ...SaveOption) error {
	var c saveConfig
	for _, o := range opts {
		o(&c)
	}
	md := map[string]string{"format": "pt"}
	for k, v := range c.metadata {
		md[k] = v
	}
	out := make([]safetensors.Tensor, len(state))
	for i, n := range state {
		t := n.Tensor
		if c.dtype != 0 && t.DType().IsFloat() {
			t = t.Cast(c.dtype)
		}
		sdt, ok := safetensors.FromDevice(t.DType())
		if !ok {
			return fmt.Errorf("nn.Save %s: tensor %q has dtype %s, which safetensors cannot hold", path, n.Name, t.DType())
		}
		raw, err := t.Bytes()
		if err != nil {
			return fmt.Errorf("nn.Save %s: reading %q: %w", path, n.Name, err)
		}
		out[i] = safetensors.Tensor{Name: n.Name, DType: sdt, Shape: t.Shape(), Data: raw}
	}
	if err := safetensors.WriteFile(path, out, md); err != nil {
		return fmt.Errorf("nn.Save: %w", err)
	}
	return nil
}

// LoadOption configures Load.
type LoadOption func(*loadConfig)

type loadConfig struct {
	allowMissing, allowUnexpected bool
}

// AllowMissing lets Load leave alone the module's tensors that the file does
// not hold (PyTorch's strict=False, in part).
func AllowMissing() LoadOption { return func(c *loadConfig) { c.allowMissing = true } }

// AllowUnexpected lets Load ignore tensors in the file that the module does
// not have.
func AllowUnexpected() LoadOption { return func(c *loadConfig) { c.allowUnexpected = true } }

// Load reads a safetensors checkpoint from path into m's parameters and
// buffers, matching state_dict names. Every tensor is checked before any is
// changed: a malformed file (the error wraps safetensors.ErrMalformed), a
// missing or unexpected name, a shape that differs or a dtype that does not
// convert (wrapping ErrMismatch) leaves m untouched. Float tensors load from
// F32, F16, BF16 or F64 and integer ones from any integer type that fits.
func Load(path string, m Module, opts ...LoadOption) error {
	return LoadTensors(path, StateDict(m), opts...)
}

// LoadTensors reads named tensors from path as Load does.
func LoadTensors(path string, state []Named, opts ...LoadOption) error {
	var c loadConfig
	for _, o := range opts {
		o(&c)
	}
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return fmt.Errorf("nn.Load: %w", err)
	}
	if err := checkNames(f, state, c); err != nil {
		return fmt.Errorf("nn.Load %s: %w", path, err)
	}
	values := make([]*tensor.Tensor, len(state))
	for i, n := range state {
		st, ok := f.Get(n.Name)
		if !ok {
			continue // allowed missing
		}
		v, err := toDevice(n.Tensor, st)
		if err != nil {
			return fmt.Errorf("nn.Load %s: %w", path, err)
		}
		values[i] = v
	}
	for i, n := range state {
		if values[i] != nil {
			n.Tensor.Assign(values[i])
		}
	}
	return nil
}

// checkNames compares the file's names with the state's.
func checkNames(f *safetensors.File, state []Named, c loadConfig) error {
	want := make(map[string]bool, len(state))
	var missing, unexpected []string
	for _, n := range state {
		if want[n.Name] {
			usage("Load", "the module names two tensors %q", n.Name)
		}
		want[n.Name] = true
		if _, ok := f.Get(n.Name); !ok && !c.allowMissing {
			missing = append(missing, n.Name)
		}
	}
	if !c.allowUnexpected {
		for _, name := range f.Names() {
			if !want[name] {
				unexpected = append(unexpected, name)
			}
		}
	}
	if len(missing) == 0 && len(unexpected) == 0 {
		return nil
	}
	sort.Strings(missing)
	sort.Strings(unexpected)
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing "+strings.Join(missing, ", "))
	}
	if len(unexpected) > 0 {
		parts = append(parts, "unexpected "+strings.Join(unexpected, ", "))
	}
	return fmt.Errorf("%w: %s", ErrMismatch, strings.Join(parts, "; "))
}

// toDevice converts a file tensor to a new device tensor of dst's dtype and
// shape.
func toDevice(dst *tensor.Tensor, st safetensors.Tensor) (*tensor.Tensor, error) {
	if !slices.Equal(st.Shape, dst.Shape()) {
		return nil, fmt.Errorf("%w: %q has shape %v in the file, %v in the module", ErrMismatch, st.Name, st.Shape, dst.Shape())
	}
	raw, err := encodeAs(dst.DType(), st)
	if err != nil {
		return nil, err
	}
	v, err := tensor.FromBytes(dst.Device(), dst.DType(), raw, st.Shape...)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", st.Name, err)
	}
	return v, nil
}

// encodeAs returns st's elements as little-endian bytes of dt.
func encodeAs(dt tensor.DType, st safetensors.Tensor) ([]byte, error) {
	if fdt, ok := st.DType.Device(); ok && fdt == dt {
		return st.Data, nil // same type: the bytes as they are
	}
	sdt, _ := safetensors.FromDevice(dt)
	mismatch := func(err error) error {
		return fmt.Errorf("%w: %q is %s in the file and %s in the module: %v", ErrMismatch, st.Name, st.DType, dt, err)
	}
	switch {
	case dt.IsFloat():
		vals, err := st.Float32()
		if err != nil {
			return nil, mismatch(err)
		}
		return safetensors.FromFloat32(st.Name, sdt, st.Shape, vals).Data, nil
	case dt == tensor.Int32 || dt == tensor.Bool:
		vals, err := st.Int32()
		if err != nil {
			return nil, mismatch(err)
		}
		if dt == tensor.Int32 {
			return safetensors.FromInt32(st.Name, st.Shape, vals).Data, nil
		}
		raw := make([]byte, len(vals))
		for i, v := range vals {
			if v != 0 {
				raw[i] = 1
			}
		}
		return raw, nil
	}
	return nil, fmt.Errorf("%w: %q has unsupported module dtype %s", ErrMismatch, st.Name, dt)
}
