package optim

import "math"

// NewWarmupCosineLR is linear warm-up followed by cosine decay, the schedule
// GPT training uses, usually stepped once per optimizer step. Step n (from
// 0) has rate base*(n+1)/warmup for n < warmup, then falls from base to
// minLR along half a cosine, reaching it at step total, and stays there.
// Up to total it equals PyTorch's SequentialLR of LinearLR(start_factor =
// 1/warmup, total_iters = warmup-1) and CosineAnnealingLR(T_max =
// total-warmup, eta_min = minLR) with milestone warmup. The optimizer's
// rate is set to step 0's at once.
func NewWarmupCosineLR(opt Optimizer, warmup, total int, minLR float64) Scheduler {
	if warmup < 0 || total <= warmup || !(minLR >= 0) {
		usage("WarmupCosineLR", "want 0 <= warmup (%d) < total (%d) and minLR %g >= 0", warmup, total, minLR)
	}
	s := &schedule{opt: opt, base: opt.LR(), at: func(base float64, n int) float64 {
		if n < warmup {
			return base * float64(n+1) / float64(warmup)
		}
		t := min(float64(n-warmup)/float64(total-warmup), 1)
		return minLR + (base-minLR)*(1+math.Cos(math.Pi*t))/2
	}}
	opt.SetLR(s.LR())
	return s
}
