package gputest

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

// SeedEnv overrides the random seed of the kernel tests.
const SeedEnv = "SHADERFLOW_SEED"

// NewRand returns a random source for a test, seeded from SeedEnv or the
// clock, and logs the seed so that a failure can be replayed.
func NewRand(t testing.TB) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(SeedEnv); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", SeedEnv, s, err)
		}
		seed = v
	}
	t.Logf("seed %d (replay with %s=%d)", seed, SeedEnv, seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}
