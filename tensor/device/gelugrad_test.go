package device

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGeluGradDefinitions checks the GELU derivatives' float64 definitions
// against central differences of the GELUs' own definitions, their
// symmetry g(-x) = 1 - g(x), and their limits.
func TestGeluGradDefinitions(t *testing.T) {
	for _, c := range []struct {
		name    string
		f, grad func(float64) float64
	}{{"gelu_erf", geluErf64, geluErfGrad64}, {"gelu_tanh", geluTanh64, geluTanhGrad64}} {
		for x := -6.0; x <= 6; x += 0.0625 {
			const h = 1e-5
			d := (c.f(x+h) - c.f(x-h)) / (2 * h)
			assert.InDelta(t, d, c.grad(x), 1e-9, "%s'(%g)", c.name, x)
			assert.InDelta(t, 1, c.grad(x)+c.grad(-x), 1e-15, "%s'(%g) + %s'(%g)", c.name, x, c.name, -x)
		}
		assert.Equal(t, 1.0, c.grad(math.Inf(1)), c.name)
		assert.Equal(t, 0.0, c.grad(math.Inf(-1)), c.name)
		assert.True(t, math.IsNaN(c.grad(math.NaN())), c.name)
		assert.Equal(t, 0.5, c.grad(0), c.name)
		assert.Equal(t, 0.5, c.grad(math.Copysign(0, -1)), c.name)
		assert.Equal(t, 1.0, c.grad(40), c.name)
		assert.Equal(t, 0.0, c.grad(-40), c.name)
	}
	// Far in the negative tail the derivative is -|x| phi(x) to leading
	// order: relative accuracy kept, not 1 - (1 - tiny).
	x := -10.0
	lead := x * math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
	assert.InEpsilon(t, lead*(1-1/(x*x)), geluErfGrad64(x), 1e-3)
	// The exact derivative's zero (Phi(x) = -x phi(x)) near -0.7518.
	assert.Greater(t, geluErfGrad64(-0.7517), 0.0)
	assert.Less(t, geluErfGrad64(-0.7519), 0.0)
}
