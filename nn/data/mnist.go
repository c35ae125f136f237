package data

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrDatasetNotFound is wrapped by the error LoadFashionMNIST and LoadMNIST
// return when the dataset's files are not in any of the places they look.
var ErrDatasetNotFound = errors.New("data: dataset not found")

// The per-pixel statistics of the training sets after scaling to [0,1], the
// usual normalization constants for these datasets.
const (
	FashionMNISTMean = 0.2860
	FashionMNISTStd  = 0.3530
	MNISTMean        = 0.1307
	MNISTStd         = 0.3081
)

// DefaultDataEnv is the environment variable that names the data directory.
const DefaultDataEnv = "SHADERFLOW_DATA"

// LoadOption changes how LoadFashionMNIST and LoadMNIST build datasets.
type LoadOption func(*loadConfig)

type loadConfig struct {
	mean, std float32
}

// WithNormalization makes the loaders normalize pixels, after scaling to
// [0,1], as (v-mean)/std. WithNormalization(0, 1) keeps pixels in [0,1]. It
// panics if std is not positive and finite.
func WithNormalization(mean, std float32) LoadOption {
	checkNormalization("WithNormalization", mean, std)
	return func(c *loadConfig) { c.mean, c.std = mean, std }
}

// mnistFiles are the four files of an MNIST-format dataset, in the order
// train images, train labels, test images, test labels.
var mnistFiles = [4]string{
	"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
	"t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte",
}

// mnistSource describes where one MNIST-format dataset lives.
type mnistSource struct {
	name       string  // for messages
	sub        string  // subdirectory of $SHADERFLOW_DATA
	defaultDir string  // system location
	hint       string  // how to get the files
	mean, std  float32 // default normalization
}

var (
	fashionMNIST = mnistSource{
		name: "Fashion-MNIST", sub: "fashion-mnist", defaultDir: "/usr/share/datasets/fashion-mnist",
		hint: "`apt-get install dataset-fashion-mnist` provides them (in /usr/share/datasets/fashion-mnist)",
		mean: FashionMNISTMean, std: FashionMNISTStd,
	}
	mnist = mnistSource{
		name: "MNIST", sub: "mnist", defaultDir: "/usr/share/datasets/mnist",
		hint: "no Debian package provides them; place the four idx files from the MNIST distribution in one of these directories",
		mean: MNISTMean, std: MNISTStd,
	}
)

// LoadFashionMNIST loads the Fashion-MNIST training (60 000) and test
// (10 000) sets: 28×28 grayscale images as samples of shape [1, 28, 28] and
// labels in [0, 10). Pixels are scaled to [0,1] and then normalized with
// FashionMNISTMean and FashionMNISTStd unless WithNormalization says
// otherwise.
//
// The files (train-images-idx3-ubyte, train-labels-idx1-ubyte,
// t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte, each optionally with .gz)
// are looked for in dir when it is not empty; else in $SHADERFLOW_DATA/fashion-mnist
// and $SHADERFLOW_DATA when that is set; else in /usr/share/datasets/fashion-mnist,
// where `apt-get install dataset-fashion-mnist` puts them. When they are not
// found the error wraps ErrDatasetNotFound and lists every place looked in.
func LoadFashionMNIST(dir string, opts ...LoadOption) (train, test *Dataset, err error) {
	return loadMNISTFormat(fashionMNIST, dir, opts)
}

// LoadMNIST loads the MNIST handwritten-digit training and test sets exactly
// as LoadFashionMNIST loads Fashion-MNIST, with MNISTMean and MNISTStd as the
// default normalization and "mnist" instead of "fashion-mnist" as the
// directory names ($SHADERFLOW_DATA/mnist, /usr/share/datasets/mnist).
func LoadMNIST(dir string, opts ...LoadOption) (train, test *Dataset, err error) {
	return loadMNISTFormat(mnist, dir, opts)
}

func loadMNISTFormat(src mnistSource, dir string, opts []LoadOption) (train, test *Dataset, err error) {
	cfg := loadConfig{mean: src.mean, std: src.std}
	for _, o := range opts {
		o(&cfg)
	}
	paths, err := findMNISTFiles(src, dir)
	if err != nil {
		return nil, nil, err
	}
	var idx [4]*IDX
	errs := make(chan error, len(paths))
	for i, p := range paths { // decompressing dominates: overlap the files
		go func() {
			var err error
			idx[i], err = OpenIDX(p)
			errs <- err
		}()
	}
	for range paths {
		if e := <-errs; e != nil && err == nil {
			err = fmt.Errorf("data: loading %s: %w", src.name, e)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if train, err = NewDataset(idx[0], idx[1], 10, cfg.mean, cfg.std); err != nil {
		return nil, nil, fmt.Errorf("data: %s training set: %w", src.name, err)
	}
	if test, err = NewDataset(idx[2], idx[3], 10, cfg.mean, cfg.std); err != nil {
		return nil, nil, fmt.Errorf("data: %s test set: %w", src.name, err)
	}
	return train, test, nil
}

// mnistSearchDirs lists the directories to look in, in order.
func mnistSearchDirs(src mnistSource, dir string) []string {
	if dir != "" {
		return []string{dir}
	}
	if env := os.Getenv(DefaultDataEnv); env != "" {
		return []string{filepath.Join(env, src.sub), env}
	}
	return []string{src.defaultDir}
}

// findMNISTFiles returns the paths of the four files from the first directory
// that has all of them, or an error listing every directory and what it lacks.
func findMNISTFiles(src mnistSource, dir string) ([]string, error) {
	var report strings.Builder
	for _, d := range mnistSearchDirs(src, dir) {
		var paths, missing []string
		for _, f := range mnistFiles {
			if p, ok := findFile(d, f); ok {
				paths = append(paths, p)
			} else {
				missing = append(missing, f+"[.gz]")
			}
		}
		if len(missing) == 0 {
			return paths, nil
		}
		fmt.Fprintf(&report, "\n  %s: missing %s", d, strings.Join(missing, ", "))
	}
	return nil, fmt.Errorf("%w: %s files not found; looked in:%s\n%s, or pass a directory or set $%s",
		ErrDatasetNotFound, src.name, report.String(), src.hint, DefaultDataEnv)
}

// findFile returns dir/name or dir/name.gz, whichever is a regular file.
func findFile(dir, name string) (string, bool) {
	for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, name+".gz")} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}
