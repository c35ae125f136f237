package optim

import "math"

// Scheduler sets an optimizer's learning rate from a count of calls to Step
// (usually one per epoch).
type Scheduler interface {
	// Step advances the schedule by one and sets the optimizer's rate.
	Step()
	// LR returns the rate the schedule has set.
	LR() float64
}

// schedule is a learning rate as a function of the step count.
type schedule struct {
	opt   Optimizer
	base  float64
	count int
	at    func(base float64, count int) float64
}

// Step advances the count and sets the rate.
func (s *schedule) Step() {
	s.count++
	s.opt.SetLR(s.at(s.base, s.count))
}

// LR returns the rate for the current count.
func (s *schedule) LR() float64 { return s.at(s.base, s.count) }

// NewStepLR is torch.optim.lr_scheduler.StepLR: the rate starts at the
// optimizer's and is multiplied by gamma every stepSize steps.
func NewStepLR(opt Optimizer, stepSize int, gamma float64) Scheduler {
	if stepSize < 1 || !(gamma >= 0) {
		usage("StepLR", "step size %d must be positive and gamma %g non-negative", stepSize, gamma)
	}
	return &schedule{opt: opt, base: opt.LR(), at: func(base float64, n int) float64 {
		return base * math.Pow(gamma, float64(n/stepSize))
	}}
}

// NewCosineLR is torch.optim.lr_scheduler.CosineAnnealingLR (closed form):
// the rate falls from the optimizer's to etaMin along half a cosine over
// tMax steps, then rises again, with period 2*tMax.
func NewCosineLR(opt Optimizer, tMax int, etaMin float64) Scheduler {
	if tMax < 1 || !(etaMin >= 0) {
		usage("CosineLR", "tMax %d must be positive and etaMin %g non-negative", tMax, etaMin)
	}
	return &schedule{opt: opt, base: opt.LR(), at: func(base float64, n int) float64 {
		return etaMin + (base-etaMin)*(1+math.Cos(math.Pi*float64(n)/float64(tMax)))/2
	}}
}
