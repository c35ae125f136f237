package cpu

import "math"

// attnRef is an attention problem in float64 for the reference: the
// logical (row-major, broadcast expanded) values of Q [nb, L, E],
// K [nb, S, E] and V [nb, S, Ev].
type attnRef struct {
	nb, l, s, e, ev int
	scale           float64
	causal          bool
	q, k, v         []float64
}

// keys returns how many keys query i attends.
func (p *attnRef) keys(i int) int {
	if p.causal {
		return min(p.s, i+1)
	}
	return p.s
}

// score returns Scale·q_i·k_j of batch element b.
func (p *attnRef) score(b, i, j int) float64 {
	var s float64
	for e := range p.e {
		s += p.q[(b*p.l+i)*p.e+e] * p.k[(b*p.s+j)*p.e+e]
	}
	return p.scale * s
}

// forward returns Out [nb, L, Ev] and LSE [nb, L] by straightforward loops
// over the attended keys; a row whose scores hold a NaN or +Inf gets NaN
// outputs and LSE, as the softmax row kernels' rule says.
func (p *attnRef) forward() (out, lse []float64) {
	out = make([]float64, p.nb*p.l*p.ev)
	lse = make([]float64, p.nb*p.l)
	for b := range p.nb {
		for i := range p.l {
			n := p.keys(i)
			s := make([]float64, n)
			m := math.Inf(-1)
			bad := false
			for j := range s {
				s[j] = p.score(b, i, j)
				bad = bad || math.IsNaN(s[j]) || math.IsInf(s[j], 1)
				m = math.Max(m, s[j])
			}
			o := out[(b*p.l+i)*p.ev : (b*p.l+i+1)*p.ev]
			if bad {
				lse[b*p.l+i] = math.NaN()
				for c := range o {
					o[c] = math.NaN()
				}
				continue
			}
			var sum float64
			for j := range s {
				s[j] = math.Exp(s[j] - m)
				sum += s[j]
			}
			lse[b*p.l+i] = m + math.Log(sum)
			for j := range s {
				for c := range o {
					o[c] += s[j] / sum * p.v[(b*p.s+j)*p.ev+c]
				}
			}
		}
	}
	return out, lse
}

// backward returns GradQ, GradK and GradV from the given Out, LSE and
// GradOut (logical values) by the contract's formulas, summing over
// attended entries only.
func (p *attnRef) backward(out, lse, gout []float64) (gq, gk, gv []float64) {
	gq = make([]float64, p.nb*p.l*p.e)
	gk = make([]float64, p.nb*p.s*p.e)
	gv = make([]float64, p.nb*p.s*p.ev)
	for b := range p.nb {
		for i := range p.l {
			r := b*p.l + i
			var d float64
			for c := range p.ev {
				d += gout[r*p.ev+c] * out[r*p.ev+c]
			}
			for j := range p.keys(i) {
				pij := math.Exp(p.score(b, i, j) - lse[r])
				var dp float64
				for c := range p.ev {
					dp += gout[r*p.ev+c] * p.v[(b*p.s+j)*p.ev+c]
					gv[(b*p.s+j)*p.ev+c] += pij * gout[r*p.ev+c]
				}
				ds := pij * (dp - d)
				for e := range p.e {
					gq[r*p.e+e] += p.scale * ds * p.k[(b*p.s+j)*p.e+e]
					gk[(b*p.s+j)*p.e+e] += p.scale * ds * p.q[r*p.e+e]
				}
			}
		}
	}
	return gq, gk, gv
}
