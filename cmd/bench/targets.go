package main

import (
	"fmt"

	"github.com/shaderflow/shaderflow/tensor/bench"
)

// target is a performance goal of the CPU backend, checked against a
// report (never asserted: it is read, with the machine load, by a person).
type target struct {
	name  string // the result it applies to
	goal  string
	check func(r bench.Report, res bench.Result) (got string, met bool, known bool)
}

// targets are the goals of the CPU backend on this project's 2-core machine.
var targets = []target{
	{"sgemm 1024x1024x1024", "≥ 86% of the FMA peak", fractionAtLeast(0.86)},
	{"sgemm 1024x1024x1024", "≥ 1.1× PyTorch", peerAtLeast(1.1)},
	{"sgemm 64x784x128", "≥ 150 GFLOP/s", func(_ bench.Report, res bench.Result) (string, bool, bool) {
		g := res.GFLOPPerSec()
		return fmt.Sprintf("%.1f GFLOP/s", g), g >= 150, g > 0
	}},
	{"add 10M", "≥ 90% of STREAM bandwidth", fractionAtLeast(0.9)},
	{"mul 10M", "≥ 90% of STREAM bandwidth", fractionAtLeast(0.9)},
	{"relu 10M", "≥ 90% of STREAM bandwidth", fractionAtLeast(0.9)},
	{"tanh 10M", "≥ 80% of STREAM bandwidth", fractionAtLeast(0.8)},
	{"sigmoid 10M", "≥ 80% of STREAM bandwidth", fractionAtLeast(0.8)},
	{"gelu 10M", "≥ 80% of STREAM bandwidth", fractionAtLeast(0.8)},
	{"exp 10M", "≥ 80% of STREAM bandwidth", fractionAtLeast(0.8)},
	{"onnx resnet18 batch 32", "≥ 1× PyTorch", peerAtLeast(1)},
	{"chain4 fused 10M", "≥ 3× the unfused chain", func(r bench.Report, res bench.Result) (string, bool, bool) {
		u, ok := r.Result("chain4 unfused 10M")
		if !ok || res.Median <= 0 {
			return "", false, false
		}
		x := float64(u.Median) / float64(res.Median)
		return fmt.Sprintf("%.2f× the unfused chain", x), x >= 3, true
	}},
}

// fractionAtLeast checks the fraction of the result's limit.
func fractionAtLeast(f float64) func(bench.Report, bench.Result) (string, bool, bool) {
	return func(r bench.Report, res bench.Result) (string, bool, bool) {
		frac, key, ok := r.LimitFraction(res)
		if ok && frac > 1 {
			// Above the machine's ceiling: the ceiling was measured while
			// the machine was busy, so the fraction means nothing.
			return fmt.Sprintf("%.1f%% of %s, over the ceiling: the limit measurement was disturbed", 100*frac, key), false, false
		}
		return fmt.Sprintf("%.1f%% of %s", 100*frac, key), frac >= f, ok
	}
}

// peerAtLeast checks the speed ratio against the peer.
func peerAtLeast(x float64) func(bench.Report, bench.Result) (string, bool, bool) {
	return func(r bench.Report, res bench.Result) (string, bool, bool) {
		ratio, _, ok := r.PeerRatio(res)
		return fmt.Sprintf("%.2f× PyTorch", ratio), ratio >= x, ok
	}
}

// checkTargets notes each target on its result and returns one line per
// target (the report shows the notes; callers print the lines only where
// the report is not printed).
func checkTargets(r *bench.Report) []string {
	var lines []string
	for _, t := range targets {
		i := -1
		for k := range r.Results {
			if r.Results[k].Name == t.name {
				i = k
			}
		}
		if i < 0 {
			continue
		}
		got, met, known := t.check(*r, r.Results[i])
		verdict := "not measured"
		if got != "" && !known {
			verdict = "not judged"
		}
		switch {
		case known && met:
			verdict = "met"
		case known:
			verdict = "missed"
		}
		s := fmt.Sprintf("target %s: %s", t.goal, verdict)
		if known {
			s += " (" + got + ")"
		}
		addNote(&r.Results[i], s)
		lines = append(lines, t.name+": "+s)
	}
	return lines
}
