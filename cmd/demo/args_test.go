package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseArgsRefusesWhatWouldBeIgnored(t *testing.T) {
	for _, args := range [][]string{
		{"--train", "mlp", "--epochs", "0"},
		{"--train", "mlp", "--epochs", "-2"},
		{"--epochs", "3"},
		{"--seed", "1"},
		{"--train", "rnn"},
		{"--train", "gpt", "--steps", "1"},
		{"--train", "gpt", "--epochs", "2"},
		{"--train", "mlp", "--steps", "10"},
		{"--steps", "10"},
		{"--train", "mlp", "--schedule", "linear"},
		{"--train", "mlp", "--torch-device", "tpu"},
		{"--list", "--train", "cnn"},
		{"stray"},
	} {
		var out bytes.Buffer
		_, err := parseArgs(args, &out)
		assert.Error(t, err, "%v", args)
	}
}

func TestParseArgsDefaults(t *testing.T) {
	var out bytes.Buffer
	opts, err := parseArgs(nil, &out)
	require.NoError(t, err)
	assert.Equal(t, "auto", opts.backend)
	assert.Nil(t, opts.train)

	opts, err = parseArgs([]string{"--train", "cnn"}, &out)
	require.NoError(t, err)
	assert.Equal(t, 1, opts.train.epochs)
	opts, err = parseArgs([]string{"--train", "mlp", "--epochs", "2", "--backend", "cpu"}, &out)
	require.NoError(t, err)
	assert.Equal(t, 2, opts.train.epochs)
	assert.Equal(t, "cpu", opts.backend)
	opts, err = parseArgs([]string{"--train", "gpt"}, &out)
	require.NoError(t, err)
	assert.Equal(t, gptDefaultStep, opts.train.steps)
	opts, err = parseArgs([]string{"--train", "gpt", "--steps", "20", "--bench"}, &out)
	require.NoError(t, err)
	assert.Equal(t, 20, opts.train.steps)
	assert.True(t, opts.train.bench)
}

func TestHelpStartsWithWhatTheDemoDoes(t *testing.T) {
	var out bytes.Buffer
	_, err := parseArgs([]string{"--help"}, &out)
	require.ErrorIs(t, err, flag.ErrHelp)
	first, _, _ := strings.Cut(out.String(), "\n")
	assert.True(t, strings.HasPrefix(first, "demo: Shaderflow's demo."), "first line %q", first)
	assert.Contains(t, out.String(), "Usage:\n  go run ./cmd/demo")
	assert.Contains(t, out.String(), "-epochs")
}
