package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	if err := runMain(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// options are the command-line flags.
type options struct {
	dir      string
	check    bool
	verbose  bool
	naga     string
	spirvVal string
}

// runMain parses args, compiles every kind and writes or checks the output.
func runMain(args []string, log io.Writer) error {
	var o options
	fs := flag.NewFlagSet("spirv", flag.ContinueOnError)
	fs.SetOutput(log)
	fs.StringVar(&o.dir, "dir", "", "the shaders directory (default: . when it holds *.wgsl files, else ./shaders)")
	fs.BoolVar(&o.check, "check", false, "write nothing; exit 1 when shaders/spv is stale")
	fs.BoolVar(&o.verbose, "v", false, "report every kind and the post-passes applied")
	fs.StringVar(&o.naga, "naga", "", "path of the naga compiler (default: PATH, then /usr/local/bin)")
	fs.StringVar(&o.spirvVal, "spirv-val", "", "path of spirv-val (default: PATH)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("spirv: unexpected arguments %q", fs.Args())
	}
	if o.dir == "" {
		o.dir = "shaders"
		if m, _ := filepath.Glob("*.wgsl"); len(m) > 0 {
			o.dir = "."
		}
	}
	srcs, err := ReadSources(o.dir)
	if err != nil {
		return err
	}
	kinds := Kinds(srcs)
	if len(kinds) == 0 {
		return fmt.Errorf("spirv: no kernel kinds (*.wgsl files with a @compute entry point) in %s", o.dir)
	}
	tc, err := FindToolchain(o.naga, o.spirvVal)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "shaderflow-spirv-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	out := map[string][]byte{}
	for _, k := range kinds {
		b, notes, err := tc.Compile(k, tmp)
		if err != nil {
			return err
		}
		out[k.Name+".spv"] = b
		if o.verbose {
			what := "no post-pass changes"
			if len(notes) > 0 {
				what = strings.Join(notes, "; ")
			}
			fmt.Fprintf(log, "spirv: %s: %d bytes; %s\n", k.Name, len(b), what)
		}
	}
	spvDir := filepath.Join(o.dir, "spv")
	if o.check {
		return Check(spvDir, out)
	}
	return WriteAll(spvDir, out, log)
}

// diff compares the wanted files with spvDir's .spv files and returns the
// names that are stale (different bytes), missing, and extra.
func diff(spvDir string, want map[string][]byte) (stale, missing, extra []string, err error) {
	have, err := filepath.Glob(filepath.Join(spvDir, "*.spv"))
	if err != nil {
		return nil, nil, nil, err
	}
	for _, p := range have {
		if _, ok := want[filepath.Base(p)]; !ok {
			extra = append(extra, filepath.Base(p))
		}
	}
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join(spvDir, name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			missing = append(missing, name)
		case err != nil:
			return nil, nil, nil, err
		case !bytes.Equal(got, b):
			stale = append(stale, name)
		}
	}
	slices.Sort(stale)
	slices.Sort(missing)
	slices.Sort(extra)
	return stale, missing, extra, nil
}

// Check returns an error naming every file of spvDir that does not match want.
func Check(spvDir string, want map[string][]byte) error {
	stale, missing, extra, err := diff(spvDir, want)
	if err != nil {
		return err
	}
	if len(stale)+len(missing)+len(extra) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "spirv: %s is out of date; run `go generate ./shaders` (or `go run ./tools/spirv`) and commit the result", spvDir)
	for _, l := range []struct {
		what  string
		names []string
	}{{"stale", stale}, {"missing", missing}, {"no longer generated", extra}} {
		if len(l.names) > 0 {
			fmt.Fprintf(&b, "\n  %s: %s", l.what, strings.Join(l.names, ", "))
		}
	}
	return errors.New(b.String())
}

// WriteAll makes spvDir hold exactly the wanted files, rewriting only those
// whose bytes changed.
func WriteAll(spvDir string, want map[string][]byte, log io.Writer) error {
	if err := os.MkdirAll(spvDir, 0o755); err != nil {
		return err
	}
	stale, missing, extra, err := diff(spvDir, want)
	if err != nil {
		return err
	}
	for _, name := range append(stale, missing...) {
		tmp := filepath.Join(spvDir, "."+name+".tmp")
		if err := os.WriteFile(tmp, want[name], 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, filepath.Join(spvDir, name)); err != nil {
			return err
		}
		fmt.Fprintf(log, "spirv: wrote %s\n", filepath.Join(spvDir, name))
	}
	for _, name := range extra {
		if err := os.Remove(filepath.Join(spvDir, name)); err != nil {
			return err
		}
		fmt.Fprintf(log, "spirv: removed %s\n", filepath.Join(spvDir, name))
	}
	return nil
}
