package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Toolchain holds the paths of the external compilers.
type Toolchain struct {
	Naga     string
	SpirvVal string
}

// The versions of SPIR-V and Vulkan the kernels target: Vulkan 1.0 so that
// every Vulkan driver loads them.
const (
	spirvVersion = "1.0"
	targetEnv    = "vulkan1.0"
)

// nagaHint and spirvValHint say how to install the tools.
const (
	nagaHint     = "install naga 30 (`cargo install naga-cli --version 30.0.1`; the project's machine image has it at /usr/local/bin/naga) or pass -naga PATH"
	spirvValHint = "install SPIRV-Tools (Debian/Ubuntu: `apt-get install spirv-tools`) or pass -spirv-val PATH"
)

// findTool resolves an explicit path, or name in PATH, or name in fallback
// directories.
func findTool(explicit, name, hint string, fallback ...string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", fmt.Errorf("spirv: %s not found at %s: %s", name, explicit, hint)
		}
		return explicit, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range fallback {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("spirv: %s not found in PATH: %s", name, hint)
}

// FindToolchain locates naga and spirv-val; empty arguments search PATH.
func FindToolchain(naga, spirvVal string) (Toolchain, error) {
	var t Toolchain
	var err error
	if t.Naga, err = findTool(naga, "naga", nagaHint, "/usr/local/bin", filepath.Join(os.Getenv("HOME"), ".cargo", "bin")); err != nil {
		return t, err
	}
	if t.SpirvVal, err = findTool(spirvVal, "spirv-val", spirvValHint); err != nil {
		return t, err
	}
	return t, nil
}

// run executes a tool and returns its combined output on failure.
func run(name string, args ...string) error {
	var out bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s", filepath.Base(name), err, strings.TrimSpace(out.String()))
	}
	return nil
}

// Compile turns a kind into validated SPIR-V bytes and the post-pass notes.
// tmp is a scratch directory.
func (t Toolchain) Compile(k Kind, tmp string) ([]byte, []string, error) {
	c := k.Compose()
	in := filepath.Join(tmp, k.Name+".composed.wgsl")
	raw := filepath.Join(tmp, k.Name+".naga.spv")
	final := filepath.Join(tmp, k.Name+".spv")
	if err := os.WriteFile(in, []byte(c.Text), 0o644); err != nil {
		return nil, nil, err
	}
	if err := run(t.Naga, "-g", "--spirv-version", spirvVersion, in, raw); err != nil {
		msg := c.RewritePositions(err.Error(), in)
		msg = c.RewritePositions(msg, filepath.Base(in))
		return nil, nil, fmt.Errorf("spirv: kind %s: %s", k.Name, msg)
	}
	b, err := os.ReadFile(raw)
	if err != nil {
		return nil, nil, err
	}
	m, err := Parse(b)
	if err != nil {
		return nil, nil, fmt.Errorf("spirv: kind %s: naga output: %w", k.Name, err)
	}
	notes := ApplyPasses(m)
	out := m.Bytes()
	if err := os.WriteFile(final, out, 0o644); err != nil {
		return nil, nil, err
	}
	if err := run(t.SpirvVal, "--target-env", targetEnv, final); err != nil {
		return nil, nil, fmt.Errorf("spirv: kind %s: the post-passed module does not validate: %w", k.Name, err)
	}
	return out, notes, nil
}
