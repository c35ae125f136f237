package bench

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor/profiler"
)

// Regression is a benchmark that got slower than its baseline by more than
// the tolerance, or that the current report lacks.
type Regression struct {
	Name    string
	Base    Result
	Current Result  // zero when Missing
	Ratio   float64 // Current.Median / Base.Median; zero when Missing
	Missing bool    // the benchmark is in the baseline but not in the current report
}

// String describes the regression on one line.
func (g Regression) String() string {
	if g.Missing {
		return fmt.Sprintf("%s: missing (baseline median %s)", g.Name, profiler.FormatDuration(g.Base.Median))
	}
	return fmt.Sprintf("%s: median %s, baseline %s (%.2f× slower)", g.Name,
		profiler.FormatDuration(g.Current.Median), profiler.FormatDuration(g.Base.Median), g.Ratio)
}

// Compare checks cur against the baseline base: every benchmark of base whose
// median in cur exceeds the baseline's by more than tolerance (0.1 allows 10%
// slower), and every benchmark of base that cur lacks, is a regression.
// Benchmarks only in cur are new and not compared. Regressions come in the
// baseline's order. Only reports from the same device and host are
// meaningfully compared; that is the caller's choice. Compare panics on a
// negative or NaN tolerance.
func Compare(base, cur Report, tolerance float64) []Regression {
	if !(tolerance >= 0) {
		panic(fmt.Sprintf("bench: Compare with tolerance %v; want a fraction >= 0", tolerance))
	}
	var out []Regression
	for _, b := range base.Results {
		c, ok := cur.Result(b.Name)
		if !ok {
			out = append(out, Regression{Name: b.Name, Base: b, Missing: true})
			continue
		}
		if float64(c.Median) > float64(b.Median)*(1+tolerance) {
			ratio := math.Inf(1)
			if b.Median > 0 {
				ratio = float64(c.Median) / float64(b.Median)
			}
			out = append(out, Regression{Name: b.Name, Base: b, Current: c, Ratio: ratio})
		}
	}
	return out
}
