package bench

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart colours: this library's bars, the peer's, and the 100% line.
var (
	oursColor  = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	peerColor  = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	limitColor = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
)

// limitNames says in words which limit a Limits key is.
var limitNames = map[string]string{LimitFLOPs: "FMA peak", LimitBandwidth: "memory bandwidth"}

// limitName returns the words for a Limits key, or the key itself.
func limitName(key string) string {
	if n, ok := limitNames[key]; ok {
		return n
	}
	return key
}

// WritePNG draws the report as a bar chart and writes it to path as PNG. When
// every result has a limit fraction (see LimitFraction), bars show the
// percentage of the machine's limit reached, each bar's label names its limit
// (FMA peak or memory bandwidth) and a line marks 100%; otherwise they show
// the median time in milliseconds. Peer figures, where present, are drawn beside each
// bar.
func (r Report) WritePNG(path string) error {
	if len(r.Results) == 0 {
		return errors.New("bench: WritePNG: the report has no results")
	}
	p, err := r.chart()
	if err != nil {
		return fmt.Errorf("bench: WritePNG: %w", err)
	}
	width := vg.Length(max(6, 0.9*float64(len(r.Results)))) * vg.Inch
	wt, err := p.WriterTo(width, 4*vg.Inch, "png")
	if err != nil {
		return fmt.Errorf("bench: WritePNG: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("bench: WritePNG: %w", err)
	}
	if _, err := wt.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("bench: WritePNG %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bench: WritePNG %s: %w", path, err)
	}
	return nil
}

// chart builds the plot.
func (r Report) chart() (*plot.Plot, error) {
	byLimit := len(r.Limits) > 0
	for _, res := range r.Results {
		if _, _, ok := r.LimitFraction(res); !ok {
			byLimit = false
		}
	}
	value := func(res Result) float64 { return float64(res.Median) / 1e6 }
	ylabel := "median time (ms, lower is better)"
	if byLimit {
		value = func(res Result) float64 {
			frac, _, _ := r.LimitFraction(res)
			return 100 * frac
		}
		ylabel = "% of the machine's limit (higher is better)"
	}

	names := make([]string, len(r.Results))
	ours := make(plotter.Values, len(r.Results))
	peers := make(plotter.Values, len(r.Results))
	hasPeer := false
	for i, res := range r.Results {
		names[i] = res.Name
		if _, key, ok := r.LimitFraction(res); ok && byLimit {
			names[i] += "\n(" + limitName(key) + ")"
		}
		ours[i] = value(res)
		if pr, ok := r.Peers[res.Name]; ok && pr.Median > 0 {
			if pr.Bytes == 0 && pr.Flops == 0 { // the same work as ours
				pr.Bytes, pr.Flops, pr.Limit = res.Bytes, res.Flops, res.Limit
			}
			peers[i] = value(pr)
			hasPeer = true
		}
	}

	p := plot.New()
	p.Title.Text = r.Title
	if p.Title.Text == "" {
		p.Title.Text = "Benchmarks"
	}
	p.Title.Text += "\n" + r.DeviceLine()
	p.Y.Label.Text = ylabel
	p.Y.Min = 0

	barWidth := vg.Points(math.Min(40, 360/float64(len(r.Results))))
	if hasPeer {
		barWidth /= 2
	}
	bars, err := plotter.NewBarChart(ours, barWidth)
	if err != nil {
		return nil, err
	}
	bars.Color = oursColor
	bars.LineStyle.Width = 0
	p.Add(bars)
	if hasPeer {
		pb, err := plotter.NewBarChart(peers, barWidth)
		if err != nil {
			return nil, err
		}
		pb.Color = peerColor
		pb.LineStyle.Width = 0
		bars.Offset, pb.Offset = -barWidth/2, barWidth/2
		p.Add(pb)
		peer := r.PeerName
		if peer == "" {
			peer = "peer"
		}
		p.Legend.Add("shaderflow", bars)
		p.Legend.Add(peer, pb)
		p.Legend.Top = true
	}
	top := 0.0
	for i := range ours {
		top = max(top, ours[i], peers[i])
	}
	if byLimit {
		full, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 100}, {X: float64(len(names)) - 0.5, Y: 100}})
		if err != nil {
			return nil, err
		}
		full.Color = limitColor
		full.Width = vg.Points(2)
		p.Add(full)
		p.Legend.Add("100% = the limit", full)
		p.Legend.Top = true
		top = max(top, 100)
	}
	if top > 0 {
		p.Y.Max = 1.15 * top // room for the legend
	}
	p.NominalX(names...)
	if len(names) > 4 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	return p, nil
}
