package nn

import (
	"math"
	"strconv"

	"github.com/shaderflow/shaderflow/tensor"
)

// GPTConfig are the sizes of a GPT. The character-level model of the demo
// and of cmd/bench is train.CharGPTConfig's: {Vocab: 65 to 100, Context:
// 128, Layers: 4, Heads: 4, Model: 128}, about 0.8M parameters.
type GPTConfig struct {
	Vocab   int // tokens in the vocabulary
	Context int // the longest sequence (positions in the table)
	Layers  int // transformer blocks
	Heads   int // attention heads; must divide Model
	Model   int // embedding size d_model
	// Dropout is the probability of every dropout (embeddings, attention
	// weights, block outputs); 0 means none.
	Dropout float64
}

// GPT is a decoder-only transformer (GPT-2's shape): token and learned
// position embeddings, Layers pre-norm blocks of causal self-attention and a
// GELU feed-forward layer of 4*Model units, a final LayerNorm and a linear
// head without bias to Vocab logits.
//
// The blocks are TransformerEncoderLayers (NormFirst, GELU, BatchFirst)
// attending causally, so the model equals a stack of PyTorch's
// nn.TransformerEncoderLayer(d, heads, 4*d, dropout, "gelu",
// batch_first=True, norm_first=True) given the upper-triangular -Inf mask.
// Its state is "wte.weight", "wpe.weight", "h.<i>.<layer state>",
// "ln_f.weight", "ln_f.bias" and "lm_head.weight".
//
// Weights start as GPT-2's: every Linear, attention and embedding weight
// N(0, 0.02²), the projections that end a residual branch (out_proj and
// linear2) N(0, (0.02/sqrt(2*Layers))²), biases zero, LayerNorms one and
// zero.
type GPT struct {
	Tok    *Embedding
	Pos    *PositionalEmbedding
	Blocks []*TransformerEncoderLayer
	Norm   *LayerNorm
	Head   *Linear
	Drop   *Dropout // on the summed embeddings
	Config GPTConfig
}

// gptStd is GPT-2's initial standard deviation of weights.
const gptStd = 0.02

// NewGPT returns a GPT of the given sizes, initialized as GPT-2. Options:
// WithGenerator (the weights and the dropout masks draw from it).
func NewGPT(dev *tensor.Device, cfg GPTConfig, opts ...Option) *GPT {
	c := configure("GPT", optGenerator, opts)
	if cfg.Vocab < 1 || cfg.Context < 1 || cfg.Layers < 1 || cfg.Heads < 1 || cfg.Model < 1 || cfg.Model%cfg.Heads != 0 {
		usage("GPT", "sizes %+v: every size must be positive and Heads must divide Model", cfg)
	}
	normal := func(std float64, shape ...int) *tensor.Tensor {
		return newParameter("GPT", Normal(dev, c.gen, 0, std, shape...))
	}
	d := cfg.Model
	g := &GPT{
		Tok:    &Embedding{Weight: normal(gptStd, cfg.Vocab, d), Num: cfg.Vocab, Dim: d},
		Pos:    &PositionalEmbedding{&Embedding{Weight: normal(gptStd, cfg.Context, d), Num: cfg.Context, Dim: d}},
		Norm:   NewLayerNorm(dev, []int{d}),
		Head:   &Linear{In: d, Out: cfg.Vocab, Weight: normal(gptStd, cfg.Vocab, d)},
		Drop:   NewDropout(cfg.Dropout, opts...),
		Config: cfg,
	}
	residual := gptStd / math.Sqrt(float64(2*cfg.Layers))
	for range cfg.Layers {
		b := NewTransformerEncoderLayer(dev, TransformerEncoderConfig{
			Model: d, Heads: cfg.Heads, FeedForward: 4 * d, Dropout: cfg.Dropout,
			GELU: true, BatchFirst: true, NormFirst: true,
		}, opts...)
		// PyTorch's initialization of the layer is replaced, and its
		// tensors released at once rather than by the garbage collector.
		replace := func(p **tensor.Tensor, t *tensor.Tensor) {
			(*p).Release()
			*p = t
		}
		replace(&b.SelfAttn.InProjWeight, normal(gptStd, 3*d, d))
		replace(&b.SelfAttn.OutProj.Weight, normal(residual, d, d))
		replace(&b.Linear1.Weight, normal(gptStd, 4*d, d))
		replace(&b.Linear1.Bias, newParameter("GPT", tensor.Zeros(dev, 4*d)))
		replace(&b.Linear2.Weight, normal(residual, d, 4*d))
		replace(&b.Linear2.Bias, newParameter("GPT", tensor.Zeros(dev, d)))
		g.Blocks = append(g.Blocks, b)
	}
	return g
}

// Forward maps Int32 token ids [N, T] (T <= Context) to logits
// [N, T, Vocab]; position t's logits depend on tokens 0..t only.
func (g *GPT) Forward(ids *tensor.Tensor) *tensor.Tensor {
	if ids.Dim() != 2 || ids.DType() != tensor.Int32 || ids.Size(1) < 1 || ids.Size(1) > g.Config.Context {
		usage("GPT", "token ids %s %v must be Int32 [N, T] with 1 <= T <= %d", ids.DType(), ids.Shape(), g.Config.Context)
	}
	x := g.Drop.Forward(g.Pos.Forward(g.Tok.Forward(ids)))
	for _, b := range g.Blocks {
		x = b.Encode(x, AttendOptions{Causal: true})
	}
	return g.Head.Forward(g.Norm.Forward(x))
}

// Loss is the mean cross-entropy of the next-token predictions: Forward of
// ids [N, T] against targets [N, T] (Int32, the ids shifted by one).
func (g *GPT) Loss(ids, targets *tensor.Tensor) *tensor.Tensor {
	if targets.DType() != tensor.Int32 || !sameInts(targets.Shape(), ids.Shape()) {
		usage("GPT", "targets %s %v must be Int32 shaped as the ids %v", targets.DType(), targets.Shape(), ids.Shape())
	}
	logits := g.Forward(ids)
	return CrossEntropy(logits.Reshape(-1, g.Config.Vocab), targets.Reshape(-1))
}

// NamedParameters returns the state in the order of the type's comment.
func (g *GPT) NamedParameters() []Named {
	ps := append(Prefixed("wte", g.Tok.NamedParameters()), Prefixed("wpe", g.Pos.NamedParameters())...)
	for i, b := range g.Blocks {
		ps = append(ps, Prefixed("h."+strconv.Itoa(i), b.NamedParameters())...)
	}
	ps = append(ps, Prefixed("ln_f", g.Norm.NamedParameters())...)
	return append(ps, Prefixed("lm_head", g.Head.NamedParameters())...)
}

// NamedBuffers returns nil: a GPT has no buffers.
func (g *GPT) NamedBuffers() []Named { return nil }

// Train switches every dropout on or off.
func (g *GPT) Train(on bool) {
	g.Drop.Train(on)
	for _, b := range g.Blocks {
		b.Train(on)
	}
}
