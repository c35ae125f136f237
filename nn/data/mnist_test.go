package data

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeFakeMNIST writes a small MNIST-format dataset into dir: nTrain and
// nTest images of 28×28, the train files gzip-compressed and the test files
// plain. It returns the raw pixels and labels of the training set.
func writeFakeMNIST(t *testing.T, dir string, nTrain, nTest int) (pix, labels []float64) {
	r := newRand(t)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for k, n := range []int{nTrain, nTest} {
		p := randomValues(r, U8, n*28*28)
		l := make([]float64, n)
		for i := range l {
			l[i] = float64(r.IntN(10))
		}
		gz, suffix := k == 0, ""
		if gz {
			suffix, pix, labels = ".gz", p, l
		}
		img := idxBytes(t, encodeIDX(U8, []int{n, 28, 28}, p), gz)
		lab := idxBytes(t, encodeIDX(U8, []int{n}, l), gz)
		require.NoError(t, os.WriteFile(filepath.Join(dir, mnistFiles[2*k]+suffix), img, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, mnistFiles[2*k+1]+suffix), lab, 0o644))
	}
	return pix, labels
}

func TestLoadFashionMNISTFromDir(t *testing.T) {
	dir := t.TempDir()
	pix, labels := writeFakeMNIST(t, dir, 23, 11)
	train, test, err := LoadFashionMNIST(dir)
	require.NoError(t, err)
	assert.Equal(t, 23, train.Len())
	assert.Equal(t, 11, test.Len())
	assert.Equal(t, []int{1, 28, 28}, train.Shape)
	assert.Equal(t, 10, train.NumClasses)
	for i, p := range pix { // default normalization
		want := (p/255 - FashionMNISTMean) / FashionMNISTStd
		require.InDelta(t, want, float64(train.X[i]), 1e-5, "pixel %d", i)
	}
	for i, l := range labels {
		require.Equal(t, int32(l), train.Y[i])
	}

	train, _, err = LoadMNIST(dir, WithNormalization(0, 1))
	require.NoError(t, err)
	for i, p := range pix {
		require.InDelta(t, p/255, float64(train.X[i]), 1e-7, "pixel %d", i)
	}
}

func TestLoadFashionMNISTFromEnv(t *testing.T) {
	root := t.TempDir()
	writeFakeMNIST(t, filepath.Join(root, "fashion-mnist"), 5, 3)
	t.Setenv(DefaultDataEnv, root)
	train, test, err := LoadFashionMNIST("")
	require.NoError(t, err)
	assert.Equal(t, 5, train.Len())
	assert.Equal(t, 3, test.Len())

	// MNIST is looked for in $SHADERFLOW_DATA/mnist and $SHADERFLOW_DATA.
	_, _, err = LoadMNIST("")
	require.ErrorIs(t, err, ErrDatasetNotFound)
	assert.Contains(t, err.Error(), filepath.Join(root, "mnist")+":")
	assert.Contains(t, err.Error(), root+":")
}

func TestMNISTSearchDirs(t *testing.T) {
	t.Setenv(DefaultDataEnv, "")
	assert.Equal(t, []string{"/usr/share/datasets/fashion-mnist"}, mnistSearchDirs(fashionMNIST, ""))
	assert.Equal(t, []string{"/d"}, mnistSearchDirs(fashionMNIST, "/d"))
	t.Setenv(DefaultDataEnv, "/e")
	assert.Equal(t, []string{"/e/fashion-mnist", "/e"}, mnistSearchDirs(fashionMNIST, ""))
	assert.Equal(t, []string{"/e/mnist", "/e"}, mnistSearchDirs(mnist, ""))
	assert.Equal(t, []string{"/d"}, mnistSearchDirs(mnist, "/d"))
}

func TestLoadFashionMNISTMissing(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, mnistFiles[0]), nil, 0o644))
	_, _, err := LoadFashionMNIST(dir)
	require.ErrorIs(t, err, ErrDatasetNotFound)
	msg := err.Error()
	assert.Contains(t, msg, dir)
	assert.Contains(t, msg, "apt-get install dataset-fashion-mnist")
	assert.NotContains(t, msg, mnistFiles[0]+"[")
	for _, f := range mnistFiles[1:] {
		assert.Contains(t, msg, f)
	}
	t.Log(msg)
}

func TestLoadFashionMNISTCorruptFile(t *testing.T) {
	dir := t.TempDir()
	writeFakeMNIST(t, dir, 4, 2)
	require.NoError(t, os.WriteFile(filepath.Join(dir, mnistFiles[3]), []byte{0, 0, 8, 1, 0, 0, 0, 2, 9}, 0o644))
	_, _, err := LoadFashionMNIST(dir)
	require.ErrorIs(t, err, ErrMalformed)
	t.Log(err)

	writeFakeMNIST(t, dir, 4, 2)
	require.NoError(t, os.WriteFile(filepath.Join(dir, mnistFiles[3]), []byte{0, 0, 8, 1, 0, 0, 0, 2, 12, 1}, 0o644))
	_, _, err = LoadFashionMNIST(dir)
	require.ErrorContains(t, err, "label 12 of sample 0")
}

// TestRealFashionMNIST loads the dataset that Debian's dataset-fashion-mnist
// package installs, when it is installed.
func TestRealFashionMNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real Fashion-MNIST (about 1 s)")
	}
	train, test, err := LoadFashionMNIST(fashionMNIST.defaultDir, WithNormalization(0, 1))
	if errors.Is(err, ErrDatasetNotFound) {
		t.Skipf("Fashion-MNIST is not installed: %v", err)
	}
	require.NoError(t, err)
	for _, c := range []struct {
		ds *Dataset
		n  int
	}{{train, 60000}, {test, 10000}} {
		require.Equal(t, c.n, c.ds.Len())
		require.Len(t, c.ds.X, c.n*28*28)
		assert.Equal(t, []int{1, 28, 28}, c.ds.Shape)
		counts := make([]int, 10)
		for _, y := range c.ds.Y {
			require.True(t, y >= 0 && y < 10, "label %d", y)
			counts[y]++
		}
		for k, n := range counts { // both splits are balanced
			assert.Equal(t, c.n/10, n, "class %d", k)
		}
		var sum, sq float64
		lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
		for _, v := range c.ds.X {
			sum += float64(v)
			sq += float64(v) * float64(v)
			lo, hi = min(lo, v), max(hi, v)
		}
		mean := sum / float64(len(c.ds.X))
		std := math.Sqrt(sq/float64(len(c.ds.X)) - mean*mean)
		t.Logf("%d samples: pixel mean %.4f std %.4f min %g max %g, class counts %v", c.n, mean, std, lo, hi, counts)
		assert.Equal(t, float32(0), lo)
		assert.Equal(t, float32(1), hi)
		assert.InDelta(t, FashionMNISTMean, mean, 0.005)
		assert.InDelta(t, FashionMNISTStd, std, 0.005)
	}
}
