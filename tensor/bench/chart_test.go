package bench

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodePNG reads path as PNG and counts the pixels of each chart colour.
func decodePNG(t *testing.T, path string) (image.Image, map[color.RGBA]int) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	counts := map[color.RGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if c == oursColor || c == peerColor || c == limitColor {
				counts[c]++
			}
		}
	}
	return img, counts
}

func TestWritePNGWithLimitsAndPeers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.png")
	r := sampleReport()
	require.NoError(t, r.WritePNG(path))
	img, counts := decodePNG(t, path)
	assert.Greater(t, img.Bounds().Dx(), 400)
	assert.Greater(t, img.Bounds().Dy(), 200)
	assert.Greater(t, counts[oursColor], 100, "our bars are drawn")
	assert.Greater(t, counts[peerColor], 100, "the peer's bar is drawn")
	assert.Greater(t, counts[limitColor], 50, "the 100% line is drawn")
}

func TestChartNamesEachBarsLimit(t *testing.T) {
	p, err := sampleReport().chart()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, p.Y.Max, 100.0, "the 100% line is inside the plot")
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		labels = append(labels, tk.Label)
	}
	joined := strings.Join(labels, "|")
	assert.Contains(t, joined, "(FMA peak)")
	assert.Contains(t, joined, "(memory bandwidth)")
}

func TestWritePNGTimesWithoutPeers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "times.png")
	var r Report
	for i, name := range []string{"a", "b", "c", "d", "e", "f"} {
		r.Results = append(r.Results, FromSamples(name, []time.Duration{time.Duration(i+1) * time.Millisecond}))
	}
	require.NoError(t, r.WritePNG(path))
	_, counts := decodePNG(t, path)
	assert.Greater(t, counts[oursColor], 100)
	assert.Zero(t, counts[peerColor])
}

func TestWritePNGErrors(t *testing.T) {
	assert.EqualError(t, Report{}.WritePNG(filepath.Join(t.TempDir(), "x.png")), "bench: WritePNG: the report has no results")
	err := sampleReport().WritePNG(filepath.Join(t.TempDir(), "no", "such", "dir.png"))
	assert.ErrorContains(t, err, "bench: WritePNG")
}
