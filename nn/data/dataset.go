package data

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/internal/checked"
)

// Dataset is an in-memory classification dataset: N samples of one shape,
// stored contiguously as normalized float32, with int32 labels.
type Dataset struct {
	// X holds the samples one after another, Len()*SampleSize() values.
	X []float32
	// Shape is the shape of one sample, e.g. [1, 28, 28].
	Shape []int
	// Y holds one label per sample, each in [0, NumClasses).
	Y []int32
	// NumClasses is the number of label classes.
	NumClasses int
}

// Len returns the number of samples.
func (d *Dataset) Len() int { return len(d.Y) }

// SampleSize returns the number of values in one sample.
func (d *Dataset) SampleSize() int {
	n, ok := checked.Product(d.Shape...)
	if !ok {
		panic(fmt.Sprintf("data: Dataset.SampleSize: shape %v overflows", d.Shape))
	}
	return n
}

// Sample returns the values and the label of sample i. The slice aliases X.
func (d *Dataset) Sample(i int) ([]float32, int32) {
	if i < 0 || i >= d.Len() {
		panic(fmt.Sprintf("data: Dataset.Sample(%d) out of range [0, %d)", i, d.Len()))
	}
	n := d.SampleSize()
	return d.X[i*n : (i+1)*n : (i+1)*n], d.Y[i]
}

// NewDataset builds a dataset from an image file and a label file. Images of
// type U8 are scaled to [0,1] (divided by 255); F32 and F64 images are taken
// as they are; other types are refused. Every value v then becomes
// (v-mean)/std, computed in float64 and rounded once to float32. The first
// image dimension is the sample count; a rank-3 image file [N, H, W] gets a
// channel dimension, so samples have shape [1, H, W] (the layout Conv2d
// expects); other ranks keep Dims[1:].
//
// Mismatched counts, labels that are not integers, and labels outside
// [0, numClasses) are data errors. A std that is not positive and finite, a
// non-finite mean, or numClasses < 1 is a programmer error and panics.
func NewDataset(images, labels *IDX, numClasses int, mean, std float32) (*Dataset, error) {
	checkNormalization("NewDataset", mean, std)
	if numClasses < 1 {
		panic(fmt.Sprintf("data: NewDataset: numClasses %d < 1", numClasses))
	}
	if err := images.check(); err != nil {
		return nil, fmt.Errorf("data: NewDataset: images: %w", err)
	}
	if err := labels.check(); err != nil {
		return nil, fmt.Errorf("data: NewDataset: labels: %w", err)
	}
	if len(images.Dims) < 1 || len(labels.Dims) != 1 || images.Dims[0] != labels.Dims[0] {
		return nil, fmt.Errorf("data: NewDataset: images of shape %v do not match labels of shape %v (want [N, ...] and [N])", images.Dims, labels.Dims)
	}
	y, err := labels.Int32s()
	if err != nil {
		return nil, fmt.Errorf("data: NewDataset: labels: %w", err)
	}
	for i, l := range y {
		if l < 0 || int(l) >= numClasses {
			return nil, fmt.Errorf("data: NewDataset: label %d of sample %d outside [0, %d)", l, i, numClasses)
		}
	}
	shape := append([]int(nil), images.Dims[1:]...)
	if len(images.Dims) == 3 {
		shape = append([]int{1}, shape...)
	}
	x, err := normalize(images, mean, std)
	if err != nil {
		return nil, err
	}
	return &Dataset{X: x, Shape: shape, Y: y, NumClasses: numClasses}, nil
}

// normalize converts image values to float32 (v*scale - mean)/std.
func normalize(images *IDX, mean, std float32) ([]float32, error) {
	m, s := float64(mean), float64(std)
	switch {
	case images.Type == U8:
		var lut [256]float32
		for v := range lut {
			lut[v] = float32((float64(v)/255 - m) / s)
		}
		x := make([]float32, len(images.Data))
		for i, v := range images.Data {
			x[i] = lut[v]
		}
		return x, nil
	case images.Type.IsFloat():
		x := make([]float32, images.Len())
		for i := range x {
			x[i] = float32((images.At(i) - m) / s)
		}
		return x, nil
	}
	return nil, fmt.Errorf("data: NewDataset: images of type %s: want u8 (scaled to [0,1]) or f32/f64", images.Type)
}

// checkNormalization panics on a mean or std that cannot normalize.
func checkNormalization(op string, mean, std float32) {
	m, s := float64(mean), float64(std)
	if math.IsNaN(m) || math.IsInf(m, 0) || !(s > 0) || math.IsInf(s, 0) {
		panic(fmt.Sprintf("data: %s: normalization mean %v, std %v: want a finite mean and a finite std > 0", op, mean, std))
	}
}
