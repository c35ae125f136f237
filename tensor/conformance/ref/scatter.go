package ref

import (
	"fmt"
	"slices"
	"strings"
)

// References of the scatter-like ops and of Einsum.

// Scatter is torch.scatter(a, dim, index, src): a with src[i] written where
// index[i] points along dim (index has no repeated targets).
func Scatter(a *Array, dim int, index, src *Array) *Array {
	dim = normAxis("Scatter", dim, a.Dim())
	out := a.Contiguous()
	forEachIndex(index.shape, func(idx []int) {
		j := slices.Clone(idx)
		j[dim] = checkIndex("Scatter", index.At(idx...), a.shape[dim])
		out.data[out.offsetOf(j)] = src.At(idx...)
	})
	return out
}

// IndexAdd is torch.index_add(a, dim, index, src) for a 1-D index.
func IndexAdd(a *Array, dim int, index, src *Array) *Array {
	dim = normAxis("IndexAdd", dim, a.Dim())
	out := a.Contiguous()
	forEachIndex(src.shape, func(idx []int) {
		j := slices.Clone(idx)
		j[dim] = checkIndex("IndexAdd", index.At(idx[dim]), a.shape[dim])
		out.data[out.offsetOf(j)] += src.At(idx...)
	})
	return out
}

// MaskedSelect is torch.masked_select: the elements of a where mask (both
// broadcast) is nonzero, in row-major order, as a 1-D array.
func MaskedSelect(a, mask *Array) *Array {
	shape := BroadcastShapes("MaskedSelect", a.shape, mask.shape)
	av, mv := a.Expand(shape...).Values(), mask.Expand(shape...).Values()
	var out []float64
	for i, m := range mv {
		if m != 0 {
			out = append(out, av[i])
		}
	}
	return New(out, len(out))
}

// Einsum is torch.einsum for subscripts with an explicit output and no
// ellipsis, by summing over every combination of the letters.
func Einsum(subscripts string, operands ...*Array) *Array {
	lhs, out, ok := strings.Cut(strings.ReplaceAll(subscripts, " ", ""), "->")
	if !ok {
		panic(fmt.Sprintf("ref.Einsum: %q needs an explicit output", subscripts))
	}
	ins := strings.Split(lhs, ",")
	size := map[rune]int{}
	var letters []rune
	for k, in := range ins {
		for i, c := range in {
			if _, seen := size[c]; !seen {
				letters = append(letters, c)
			}
			size[c] = max(size[c], operands[k].shape[i])
		}
	}
	shape := func(s string) []int {
		sh := make([]int, 0, len(s))
		for _, c := range s {
			sh = append(sh, size[c])
		}
		return sh
	}
	all := make([]int, len(letters))
	for i, c := range letters {
		all[i] = size[c]
	}
	res := Zeros(shape(out)...)
	at := func(s string, idx []int, bounds []int) []int {
		j := make([]int, 0, len(s))
		for i, c := range s {
			v := idx[slices.Index(letters, c)]
			if bounds != nil && bounds[i] == 1 {
				v = 0 // broadcast
			}
			j = append(j, v)
		}
		return j
	}
	forEachIndex(all, func(idx []int) {
		p := 1.0
		for k, in := range ins {
			p *= operands[k].At(at(in, idx, operands[k].shape)...)
		}
		res.data[res.offsetOf(at(out, idx, nil))] += p
	})
	return res
}
