package main

// usageText heads the command's -help output.
const usageText = `Usage: bench [flags]

Measures this machine's FMA peak and memory bandwidth, runs every benchmark
against them and against PyTorch (when /usr/bin/python3 has torch), and
prints a Markdown report; -out also writes JSON and a PNG chart.

How long it takes (measured 2026-11-26, AMD EPYC, 2 cores shared with other
work): -quick -no-torch took about 105 s; a full run repeats each benchmark
more and measures the limits longer, and the PyTorch comparison roughly
doubles it (not timed on that machine). Use -run to select benchmarks.

Flags:
`
