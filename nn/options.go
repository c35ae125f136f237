package nn

import (
	"strings"

	"github.com/shaderflow/shaderflow/tensor"
)

// Option configures a layer constructor. Each constructor documents the
// options it accepts and panics, naming the option, when given another.
type Option func(*config)

// optionBit identifies an option for the "accepted by this layer" check.
type optionBit uint16

const (
	optGenerator optionBit = 1 << iota
	optNoBias
	optStride
	optPadding
	optDilation
	optGroups
	optKernel
	optEps
	optMomentum
	optNoAffine
	optOutputPadding
)

var optionNames = map[optionBit]string{
	optGenerator: "WithGenerator", optNoBias: "NoBias", optStride: "Stride", optPadding: "Padding",
	optDilation: "Dilation", optGroups: "Groups", optKernel: "KernelSize", optEps: "Eps",
	optMomentum: "Momentum", optNoAffine: "NoAffine", optOutputPadding: "OutputPadding",
}

// config collects the options given to a constructor.
type config struct {
	set      optionBit
	gen      *tensor.Generator
	noBias   bool
	stride   []int
	padding  []int
	dilation []int
	groups   int
	kernel   []int
	eps      float64
	momentum float64
	noAffine bool
	outPad   []int
}

// WithGenerator draws the layer's initial weights from g instead of the
// device's random stream, so that a model's initialization is reproducible
// on its own.
func WithGenerator(g *tensor.Generator) Option {
	return func(c *config) { c.set |= optGenerator; c.gen = g }
}

// NoBias leaves out the bias of Linear, Conv1d and Conv2d.
func NoBias() Option { return func(c *config) { c.set |= optNoBias; c.noBias = true } }

// Stride sets a convolution's or pooling window's stride: one value for
// every spatial dimension or one per dimension.
func Stride(s ...int) Option {
	return func(c *config) { c.set |= optStride; c.stride = s }
}

// Padding sets the zero padding of a convolution or pooling window.
func Padding(p ...int) Option {
	return func(c *config) { c.set |= optPadding; c.padding = p }
}

// Dilation sets the spacing of a convolution's or max-pooling window's
// taps.
func Dilation(d ...int) Option {
	return func(c *config) { c.set |= optDilation; c.dilation = d }
}

// Groups splits a convolution's channels into g independent groups.
func Groups(g int) Option { return func(c *config) { c.set |= optGroups; c.groups = g } }

// KernelSize gives a convolution a non-square window (one size per spatial
// dimension), overriding the constructor's kernel argument.
func KernelSize(k ...int) Option {
	return func(c *config) { c.set |= optKernel; c.kernel = k }
}

// Eps sets the value added to the variance by the normalization layers
// (default 1e-5).
func Eps(e float64) Option { return func(c *config) { c.set |= optEps; c.eps = e } }

// Momentum sets the weight of the new batch statistic in BatchNorm's running
// averages (default 0.1).
func Momentum(m float64) Option {
	return func(c *config) { c.set |= optMomentum; c.momentum = m }
}

// NoAffine leaves out a normalization layer's learnable weight and bias.
func NoAffine() Option { return func(c *config) { c.set |= optNoAffine; c.noAffine = true } }

// OutputPadding sets the extra size a transposed convolution adds on one
// side of each spatial dimension (PyTorch's output_padding, below the
// stride), to pick among the output sizes that a stride maps to one input.
func OutputPadding(p ...int) Option {
	return func(c *config) { c.set |= optOutputPadding; c.outPad = p }
}

// configure applies opts, panicking when one is not in allowed.
func configure(op string, allowed optionBit, opts []Option) config {
	c := config{eps: 1e-5, momentum: 0.1, groups: 1}
	for _, o := range opts {
		o(&c)
	}
	if bad := c.set &^ allowed; bad != 0 {
		var names []string
		for bit := optGenerator; bit <= optOutputPadding; bit <<= 1 {
			if bad&bit != 0 {
				names = append(names, optionNames[bit])
			}
		}
		usage(op, "does not accept option(s) %s", strings.Join(names, ", "))
	}
	return c
}
