package tensor

import "math"

// Creation and sampling ops in PyTorch's spelling. The random ones draw their
// uniform numbers from Rand: the package functions from the device's stream,
// the Generator methods from the generator, one Rand draw each (of the
// result's shape for RandInt and Bernoulli), so one seed gives the same
// result on every backend wherever Rand's numbers decide it (Rand is exact
// on every backend; Multinomial's keys pass through log).

// Eye returns the n×m Float32 identity matrix: ones where row equals column,
// as torch.eye(n, m).
func Eye(d *Device, n, m int) *Tensor {
	if n < 0 || m < 0 {
		usage("Eye", "negative size %d×%d", n, m)
	}
	return positions(d, n).Unsqueeze(1).Eq(positions(d, m).Unsqueeze(0)).Cast(Float32)
}

// maxExactSteps is the largest count of positions that Float32 holds exactly.
const maxExactSteps = 1 << 24

// Linspace returns steps Float32 values evenly spaced from start to end, both
// included, as torch.linspace(start, end, steps): one step is
// (end-start)/(steps-1) in float32, the first half counts up from start and
// the rest down from end, each one fused multiply-add, as PyTorch's kernel
// does. Steps above 2^24 are
// refused (their positions are not exact in Float32).
func Linspace(d *Device, start, end float64, steps int) *Tensor {
	if steps < 0 || steps > maxExactSteps {
		usage("Linspace", "steps %d outside [0, %d]", steps, maxExactSteps)
	}
	s, e := float32(start), float32(end)
	if steps <= 1 {
		return FullOf(d, Float32, float64(s), steps)
	}
	step := FullOf(d, Float32, float64((e-s)/float32(steps-1)))
	i := positions(d, steps).Cast(Float32)
	up := i.Fma(step, FullOf(d, Float32, float64(s)))                               // start + i·step
	down := i.SubScalar(float64(steps-1)).Fma(step, FullOf(d, Float32, float64(e))) // end - (steps-1-i)·step
	return Where(i.LtScalar(float64(steps/2)), up, down)
}

// maxRandIntRange is the widest range RandInt draws from: the 2^24 values a
// Rand number takes.
const maxRandIntRange = 1 << 24

// RandInt returns Int32 numbers in [low, high) from the device's stream, as
// torch.randint(low, high, shape). Each is one Rand number k/2^24 taken as
// k mod (high-low) above low, so the values' probabilities differ by at most
// (high-low)/2^24 of each other (PyTorch's modulo has the same kind of bias
// at 2^-32); ranges wider than 2^24 are refused.
func RandInt(d *Device, low, high int, shape ...int) *Tensor {
	checkRandInt(low, high)
	return randIntFrom(Rand(d, shape...), low, high)
}

// RandInt is the package's RandInt drawing from g.
func (g *Generator) RandInt(d *Device, low, high int, shape ...int) *Tensor {
	checkRandInt(low, high)
	return randIntFrom(g.Rand(d, shape...), low, high)
}

func checkRandInt(low, high int) {
	if low >= high || low < math.MinInt32 || high-1 > math.MaxInt32 {
		usage("RandInt", "needs low < high within Int32, got [%d, %d)", low, high)
	}
	if high-low > maxRandIntRange {
		usage("RandInt", "range [%d, %d) wider than %d values", low, high, maxRandIntRange)
	}
}

// randIntFrom maps uniform numbers k/2^24 to low + k mod (high-low), in
// exact Int32 arithmetic.
func randIntFrom(u *Tensor, low, high int) *Tensor {
	k := u.MulScalar(maxRandIntRange).Cast(Int32)
	r := high - low
	m := k.Sub(k.FloorDiv(FullOf(u.Device(), Int32, float64(r))).MulScalar(float64(r)))
	return m.AddScalar(float64(low))
}

// Bernoulli returns 1 with probability p and 0 otherwise for each element of
// p, in p's float dtype (integers give Float32), as torch.bernoulli(p): one
// Rand number u from the device's stream per element, and 1 where u < p.
// Where p is outside [0, 1] or NaN (an error in PyTorch) the result is NaN.
// It has no gradient.
func Bernoulli(p *Tensor) *Tensor {
	p.check("Bernoulli")
	return bernoulliFrom(p, Rand(p.Device(), p.shape...))
}

// Bernoulli is the package's Bernoulli drawing from g.
func (g *Generator) Bernoulli(p *Tensor) *Tensor {
	p.check("Bernoulli")
	return bernoulliFrom(p, g.Rand(p.Device(), p.shape...))
}

func bernoulliFrom(p, u *Tensor) *Tensor {
	p = p.Detach()
	dt := floatType(p.DType())
	valid := p.Ge(p.scalarLike(0)).LogicalAnd(p.Le(p.scalarLike(1)))
	return Where(valid, u.Lt(p).Cast(dt), FullOf(p.Device(), dt, math.NaN()))
}
