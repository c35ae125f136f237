//go:build amd64 && !purego

package vec

// archWinKernels returns level l's generated window kernels when the CPU
// supports the level.
func archWinKernels(l Level) *winKernels {
	if !supported(l) {
		return nil
	}
	switch l {
	case LevelAVX2:
		return &winKernels{maxPool2x2: maxPool2x2AVX2, maxUnpool2x2: maxUnpool2x2AVX2, copyBlocks: copyBlocksAVX2, addBlocks: addBlocksAVX2,
			conv3x3: conv3x3AVX2, corr3x3: corr3x3AVX2, col2im3x3: col2im3x3AVX2, splitPairs: splitPairsAVX2}
	case LevelAVX512:
		return &winKernels{maxPool2x2: maxPool2x2AVX512, maxUnpool2x2: maxUnpool2x2AVX512, copyBlocks: copyBlocksAVX512, addBlocks: addBlocksAVX512,
			conv3x3: conv3x3AVX512, corr3x3: corr3x3AVX512, col2im3x3: col2im3x3AVX512, splitPairs: splitPairsAVX512}
	}
	return nil
}
