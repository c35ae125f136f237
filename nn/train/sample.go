package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/shaderflow/shaderflow/tensor"
)

// SampleOptions shape the distribution Sample draws from.
type SampleOptions struct {
	// Temperature divides the logits; 0 picks the most likely token
	// (greedy decoding, the limit as the temperature goes to 0).
	Temperature float64
	// TopK keeps only the k most likely tokens (ties broken by the lower
	// id); 0 keeps them all.
	TopK int
}

// Sample draws a token id from logits [vocab] as GPT generation does:
// softmax(logits/Temperature) restricted to the TopK most likely tokens,
// with randomness from r only, so a seeded r repeats a generation. It reads
// the logits (a synchronization point) and returns their read error, or an
// error when a logit is NaN.
func Sample(logits *tensor.Tensor, o SampleOptions, r *rand.Rand) (int, error) {
	if logits.Dim() != 1 || logits.Size(0) == 0 {
		panic(&tensor.UsageError{Op: "train.Sample", Msg: fmt.Sprintf("logits %v must be [vocab] with vocab > 0", logits.Shape())})
	}
	if !(o.Temperature >= 0) || math.IsInf(o.Temperature, 0) || o.TopK < 0 {
		panic(&tensor.UsageError{Op: "train.Sample", Msg: fmt.Sprintf("temperature %g must be finite and non-negative, top-k %d non-negative", o.Temperature, o.TopK)})
	}
	vals, err := logits.Float32s()
	if err != nil {
		return 0, fmt.Errorf("train.Sample: %w", err)
	}
	ids := make([]int, len(vals))
	for i, v := range vals {
		if math.IsNaN(float64(v)) {
			return 0, fmt.Errorf("train.Sample: logit %d is NaN", i)
		}
		ids[i] = i
	}
	sort.SliceStable(ids, func(a, b int) bool { return vals[ids[a]] > vals[ids[b]] })
	if o.Temperature == 0 {
		return ids[0], nil
	}
	if o.TopK > 0 && o.TopK < len(ids) {
		ids = ids[:o.TopK]
	}
	top := float64(vals[ids[0]]) / o.Temperature
	switch {
	case math.IsInf(top, 1): // all the mass on the (first) infinite logit
		return ids[0], nil
	case math.IsInf(top, -1):
		return 0, fmt.Errorf("train.Sample: every logit is -Inf")
	}
	weights := make([]float64, len(ids))
	sum := 0.0
	for i, id := range ids {
		weights[i] = math.Exp(float64(vals[id])/o.Temperature - top) // stable: the largest term is 1
		sum += weights[i]
	}
	u := r.Float64() * sum
	for i, w := range weights {
		if u < w {
			return ids[i], nil
		}
		u -= w
	}
	return ids[len(ids)-1], nil // rounding left u at the very end
}
