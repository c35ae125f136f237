package main

import (
	"fmt"
	"math/rand/v2"
	"runtime"

	"github.com/shaderflow/shaderflow/internal/torchref"
	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/bench"
)

// gptNewTokens is how many characters the generation benchmark draws: a
// context's worth, so its windows grow from 1 to 128 tokens (cmd/demo's
// sample of 240 goes on with windows of 128).
const gptNewTokens = 128

// charGPT is the GPT of cmd/demo's --train gpt over the King James Bible's
// characters.
func charGPT() nn.GPTConfig { return train.CharGPTConfig(data.KJVChars) }

// gptForwardFlops is the floating-point work of a forward pass of cfg over
// batch sequences of t tokens: per token and block, the input, output and
// feed-forward projections (24·d² multiply-adds, doubled) and the score and
// value products over all t positions (4·t·d, the masked half included:
// both sides compute it); per token, the head (2·d·vocab).
func gptForwardFlops(cfg nn.GPTConfig, batch, t int) float64 {
	d, tokens := float64(cfg.Model), float64(batch*t)
	block := 24*d*d + 4*float64(t)*d
	return tokens * (float64(cfg.Layers)*block + 2*d*float64(cfg.Vocab))
}

// gptThreads are PyTorch's thread counts for the GPT cases: as many as the
// Go side uses (GOMAXPROCS) and one, the faster kept: on a shared machine
// PyTorch's OpenMP threads can lose to its one thread, and comparing at the
// Go side's count alone would then flatter Shaderflow (docs/gpt.md).
func gptThreads() []int {
	if n := runtime.GOMAXPROCS(0); n > 1 {
		return []int{1, n}
	}
	return []int{1}
}

// newGPT is the benchmarks' model in evaluation mode with its parameters,
// which the case releases with its inputs.
func newGPT(dev *tensor.Device, cfg nn.GPTConfig) (*nn.GPT, []*tensor.Tensor) {
	m := nn.NewGPT(dev, cfg, nn.WithGenerator(tensor.NewGenerator(1)))
	m.Train(false)
	return m, nn.Parameters(m)
}

// gptForwardCase is inference of the GPT of cfg on batch full contexts of
// random tokens: one forward pass without gradients to the logits of every
// position; tokens/s counts every position.
func gptForwardCase(cfg nn.GPTConfig, batch int) benchCase {
	sizes := torchref.SizesOf(cfg)
	return benchCase{
		Name: fmt.Sprintf("gpt forward batch %d", batch), Kind: "gpt_forward", N: batch, GPT: &sizes,
		Threads: gptThreads(), flops: gptForwardFlops(cfg, batch, cfg.Context), limit: limitFMA,
		tokens: float64(batch * cfg.Context),
		build: func(dev *tensor.Device) (func() *tensor.Tensor, []*tensor.Tensor) {
			m, params := newGPT(dev, cfg)
			ids := tensor.NewGenerator(2).RandInt(dev, 0, cfg.Vocab, batch, cfg.Context)
			return func() *tensor.Tensor {
				var logits *tensor.Tensor
				dev.NoGrad(func() { logits = m.Forward(ids) })
				return logits
			}, append(params, ids)
		},
	}
}

// gptGenerateCase is train.Generate as cmd/demo draws its sample: n new
// tokens from a one-token prompt under train.CharGPTSampling, each from a
// forward pass over the whole window so far (the model keeps no cache of
// keys and values, on either side); tokens/s counts the new tokens.
func gptGenerateCase(cfg nn.GPTConfig, n int) benchCase {
	sizes := torchref.SizesOf(cfg)
	flops := 0.0
	for i := range n {
		flops += gptForwardFlops(cfg, 1, min(1+i, cfg.Context))
	}
	o := train.CharGPTSampling()
	return benchCase{
		Name: fmt.Sprintf("gpt generate %d tokens", n), Kind: "gpt_generate", N: n, GPT: &sizes,
		Temperature: o.Temperature, TopK: o.TopK,
		Threads: gptThreads(), flops: flops, limit: limitFMA, tokens: float64(n),
		build: func(dev *tensor.Device) (func() *tensor.Tensor, []*tensor.Tensor) {
			m, params := newGPT(dev, cfg)
			return func() *tensor.Tensor {
				out, err := train.Generate(dev, m, []int32{0}, n, o, rand.New(rand.NewPCG(1, 3)))
				if err != nil {
					panic(&tensor.UsageError{Op: "train.Generate", Msg: err.Error()})
				}
				return tensor.FromInt32s(dev, out, len(out))
			}, params
		},
	}
}

// addTokenRates notes on the result of every case of cs that counts tokens
// its tokens/s at the median and, where the report has PyTorch's figure,
// PyTorch's.
func addTokenRates(rep *bench.Report, cs []benchCase) {
	for _, c := range cs {
		if c.tokens <= 0 {
			continue
		}
		for i := range rep.Results {
			res := &rep.Results[i]
			if res.Name != c.Name || res.Median <= 0 {
				continue
			}
			note := fmt.Sprintf("%.0f tokens/s", c.tokens/res.Median.Seconds())
			if p, ok := rep.Peers[c.Name]; ok && p.Median > 0 {
				note += fmt.Sprintf(", PyTorch %.0f tokens/s", c.tokens/p.Median.Seconds())
			}
			addNote(res, note)
		}
	}
}
