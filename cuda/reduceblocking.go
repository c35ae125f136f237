package cuda

// rdAccess is how the first input of a reduction lies in memory, which
// decides the kernel whose loads coalesce.
type rdAccess int

const (
	rdRows      rdAccess = iota // an output's elements are neighbours (or there is no input)
	rdColumns                   // neighbouring outputs' elements are neighbours
	rdScattered                 // neither
)

// Thresholds of rdBlocking, sized for large GPUs (an H100 or H200 has 132
// SMs, each holding 8 blocks of rdThreads threads).
const (
	rdMinBlockCount = 32      // fewer elements an output: the serial kernel
	rdSerialOutputs = 1 << 16 // this many column outputs keep a GPU busy one thread each
	rdTargetBlocks  = 1024    // blocks that fill such a GPU
	rdPartMin       = 4096    // fewest elements a part of a split reduction
	rdMaxParts      = 1024    // most parts an output (the fold's row)
)

// rdAccessOf classifies the merged output dimensions inner and reduced
// dimensions red of a launch of nin inputs by the first input's strides
// (each dimension's first).
func rdAccessOf(inner, red []ewDim, nin int) rdAccess {
	unit := func(ds []ewDim) bool {
		if len(ds) == 0 {
			return false
		}
		s := ds[len(ds)-1].strides[0]
		return s == 1 || s == -1
	}
	switch {
	case nin == 0, unit(red):
		return rdRows
	case unit(inner):
		return rdColumns
	}
	return rdScattered
}

// rdBlocking chooses the kernel of a launch of n outputs of rn elements:
// groups 0 for the serial kernel (short reductions, or enough outputs
// whose loads coalesce across threads); else the block kernel with groups
// outputs a block (1 to rdThreads, a power of two: as many as fit rows of
// rn, or 32 neighbouring columns) and each output's elements split into
// parts blocks (more than 1 when too few blocks would fill the GPU and the
// rows are long; a second launch folds the parts).
func rdBlocking(n, rn int, access rdAccess) (groups, parts int) {
	switch {
	case rn < rdMinBlockCount:
		return 0, 0
	case access == rdColumns && n >= rdSerialOutputs:
		return 0, 0
	case access == rdColumns:
		groups = 32
	default:
		groups = rdRowGroups(rn)
	}
	blocks := (n + groups - 1) / groups
	parts = 1
	if blocks < rdTargetBlocks && rn >= 2*rdPartMin {
		parts = min((rn+rdPartMin-1)/rdPartMin, (rdTargetBlocks+blocks-1)/blocks, rdMaxParts)
	}
	return groups, parts
}

// rdRowGroups returns the outputs a block takes when each output's rn
// elements are neighbours: rdThreads over the threads a row can use (rn
// rounded up to a power of two, at most rdThreads).
func rdRowGroups(rn int) int {
	lanes := 1
	for lanes < rn && lanes < rdThreads {
		lanes *= 2
	}
	return rdThreads / lanes
}
