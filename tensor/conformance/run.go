package conformance

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// testCase is one named check; run gets a fresh environment per fusion mode.
type testCase struct {
	name  string
	large bool // skipped under -short
	run   func(e *env)
}

// group is a named list of cases, one subtest level.
type group struct {
	name  string
	cases []testCase
}

// groups lists the suite, in the order it runs.
func groups() []group {
	return []group{
		{"creation", creationCases()},
		{"views", viewCases()},
		{"indexing", indexingCases()},
		{"shapeops", shapeOpCases()},
		{"scans", scanCases()},
		{"sort", sortCases()},
		{"scatter", scatterCases()},
		{"unary", unaryCases()},
		{"gelu_grad", geluGradCases()},
		{"mathops", mathOpCases()},
		{"activation", activationCases()},
		{"sampling", samplingCases()},
		{"binary", binaryCases()},
		{"compare", compareCases()},
		{"int32", int32Cases()},
		{"bool", boolCases()},
		{"halfprec", halfCases()},
		{"widedtypes", append(wideCases(), byteCases()...)},
		{"narrow", narrowCases()},
		{"zerostride", zeroStrideCases()},
		{"padwindow", padWindowCases()},
		{"reduce", reduceCases()},
		{"softmax", append(softmaxCases(), softmaxRowCases()...)},
		{"matmul", matmulCases()},
		{"conv", convCases()},
		{"pool", poolCases()},
		{"norm", append(normCases(), normRowCases()...)},
		{"nnfunc", nnFuncCases()},
		{"attention", append(attentionCases(), fusedAttentionCases()...)},
		{"edge", edgeCases()},
		{"errors", errorCases()},
		{"fusion", fusionCases()},
		{"graphs", randomGraphCases()},
		{"memory", memoryCases()},
		{"grad", append(gradCases(), randomGradCases()...)},
	}
}

// Run runs the conformance suite against the named backend.
func Run(t *testing.T, backend string) { RunGroups(t, backend, nil) }

// RunGroups runs the groups of the suite that keep accepts (every group
// when keep is nil) against the named backend: for a backend too slow for
// the whole suite in every run, such as a test double.
func RunGroups(t *testing.T, backend string, keep func(group string) bool) {
	t.Helper()
	dev, err := tensor.Open(backend)
	if err != nil {
		if required(backend) {
			t.Fatalf("conformance: backend %q is required by SHADERFLOW_REQUIRE_BACKENDS but cannot be opened: %v", backend, err)
		}
		t.Skipf("conformance: backend %q unavailable: %v", backend, err)
	}
	defer func() {
		if err := dev.Close(); err != nil {
			t.Errorf("conformance: closing %s: %v", backend, err)
		}
	}()
	seed := suiteSeed(t)
	shard := suiteShard(t)
	t.Logf("conformance: %s; seed %d (SHADERFLOW_SEED=%d repeats this run)", dev.Info(), seed, seed)
	previous := tensor.SetFusion(true)
	defer tensor.SetFusion(previous)
	st := &state{}
	defer func() {
		if st.lost != "" {
			t.Errorf("conformance: the device was lost in %s; the cases after it were not run", st.lost)
		}
	}()
	for _, fusion := range fusionModes() {
		t.Run(fusionName(fusion), func(t *testing.T) {
			tensor.SetFusion(fusion)
			next := 0 // the suite-wide index of the group's first case
			for _, g := range groups() {
				first := next
				next += len(g.cases)
				if (keep != nil && !keep(g.name)) || !shard.holdsAny(first, len(g.cases)) {
					continue
				}
				t.Run(g.name, func(t *testing.T) {
					for j, c := range g.cases {
						if !shard.holds(first + j) {
							continue
						}
						t.Run(c.name, func(t *testing.T) {
							if c.large && testing.Short() {
								t.Skip("large case skipped in -short mode")
							}
							if st.lost != "" {
								t.Skipf("not run: the device was lost in %s", st.lost)
							}
							runCase(t, dev, st, seed, g.name+"/"+c.name, fusion, c.run)
						})
					}
				})
			}
		})
	}
}

// state is what the cases of one run share.
type state struct {
	lost string // the case in which the device was lost, if it was
}

// noteLost records that the device was lost when err says so.
func (s *state) noteLost(t *testing.T, err error) {
	if s.lost == "" && errors.Is(err, device.ErrDeviceLost) {
		s.lost = t.Name()
	}
}

// runCase runs one case in a scope of the device, turning an unexpected
// panic into a test failure so that one broken op cannot end the suite.
func runCase(t *testing.T, dev *tensor.Device, st *state, seed uint64, name string, fusion bool, run func(*env)) {
	h := fnv.New64a()
	h.Write([]byte(name))
	e := &env{t: t, dev: dev, st: st, seed: seed, fusion: fusion, rng: rand.New(rand.NewPCG(seed, h.Sum64()))}
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(error); ok {
				st.noteLost(t, err)
			}
			t.Errorf("conformance: unexpected panic: %v %s\n%s", r, e.seedNote(), debug.Stack())
		}
	}()
	dev.Scope(func() { run(e) })
}

// suiteSeed returns SHADERFLOW_SEED when set, else a seed from the clock.
func suiteSeed(t *testing.T) uint64 {
	if s := os.Getenv("SHADERFLOW_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("conformance: SHADERFLOW_SEED=%q is not an unsigned integer: %v", s, err)
		}
		return v
	}
	return uint64(time.Now().UnixNano())
}

// shardOf is one of n equal parts of the suite's cases (every n-th case
// from index i, counted across groups), so that several processes can
// share a slow backend's run; cases rather than groups, because one group
// can take most of the time.
type shardOf struct{ i, n int }

// holds reports whether the case at suite-wide index k belongs to the shard.
func (s shardOf) holds(k int) bool { return k%s.n == s.i }

// holdsAny reports whether any of the count cases from index first belongs
// to the shard.
func (s shardOf) holdsAny(first, count int) bool {
	return count > 0 && (s.i-first%s.n+s.n)%s.n < count // the offset of its first case there
}

// suiteShard reads SHADERFLOW_CONFORMANCE_SHARD ("i/n", 0 <= i < n): the
// whole suite when it is unset.
func suiteShard(t *testing.T) shardOf {
	v := os.Getenv("SHADERFLOW_CONFORMANCE_SHARD")
	if v == "" {
		return shardOf{0, 1}
	}
	var s shardOf
	if _, err := fmt.Sscanf(v, "%d/%d", &s.i, &s.n); err != nil || s.n < 1 || s.i < 0 || s.i >= s.n {
		t.Fatalf("conformance: SHADERFLOW_CONFORMANCE_SHARD=%q: want i/n with 0 <= i < n", v)
	}
	t.Logf("conformance: shard %d of %d (cases %d, %d+%d, ...)", s.i, s.n, s.i, s.i, s.n)
	return s
}

// required reports whether SHADERFLOW_REQUIRE_BACKENDS names backend.
func required(backend string) bool {
	for _, b := range strings.Split(os.Getenv("SHADERFLOW_REQUIRE_BACKENDS"), ",") {
		b = strings.TrimSpace(b)
		if b == "all" || b == backend {
			return true
		}
	}
	return false
}

// fusionModes is on and off, or only one of them when SHADERFLOW_FUSION
// chooses.
func fusionModes() []bool {
	switch os.Getenv("SHADERFLOW_FUSION") {
	case "0":
		return []bool{false}
	case "1":
		return []bool{true}
	}
	return []bool{true, false}
}

func fusionName(on bool) string {
	if on {
		return "fusion=on"
	}
	return "fusion=off"
}

// caseName joins the parts of a case name: op, dtype, shapes, layout.
func caseName(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), ":")
}

// shapeName renders a shape as 3x1x5, or "scalar".
func shapeName(shape []int) string {
	if len(shape) == 0 {
		return "scalar"
	}
	s := make([]string, len(shape))
	for i, n := range shape {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, "x")
}

// shapesName renders several shapes joined by commas.
func shapesName(shapes ...[]int) string {
	s := make([]string, len(shapes))
	for i, sh := range shapes {
		s[i] = shapeName(sh)
	}
	return strings.Join(s, ",")
}

// isLarge reports whether a case over these shapes counts as large.
func isLarge(shapes ...[]int) bool {
	n := 0
	for _, s := range shapes {
		n = max(n, numElements(s))
	}
	return n >= 100_000
}

func numElements(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}
