package tensor

import (
	"slices"
	"strings"
)

// Einsum evaluates an Einstein summation, as torch.einsum: subscripts name
// each operand's dimensions with letters ("ij,jk->ik"); letters missing
// from the output are summed over, and without "->" the output is the
// letters that occur once, in alphabetical order. A letter's dimensions
// must have equal sizes or size one (broadcast). Operands are contracted
// left to right, each pair lowered to Sum, Permute, Reshape and one batched
// MatMul, so gradients follow. An ellipsis ("...ij,...jk->...ik") stands
// for the leading dimensions, broadcast across operands and placed first in
// an implicit output. A letter repeated within one operand takes that
// operand's diagonal ("ii->i", and "ii->" its trace).
func Einsum(subscripts string, operands ...*Tensor) *Tensor {
	if len(operands) == 0 {
		usage("Einsum", "no operands")
	}
	for _, o := range operands {
		o.check("Einsum")
	}
	sameDevice("Einsum", operands[0].n.dev, operands...)
	ins, out := parseEinsum(subscripts, operands)
	operands = slices.Clone(operands)
	for k := range operands {
		operands[k], ins[k] = diagonals(operands[k], ins[k])
	}
	x, xs := operands[0], ins[0]
	for i := 1; i < len(operands); i++ {
		// Keep the letters the output or a later operand still needs.
		need := out
		for _, later := range ins[i+1:] {
			need += later
		}
		x, xs = contract(x, xs, operands[i], ins[i], need)
	}
	x, xs = sumUnneeded(x, xs, out)
	perm := make([]int, len(out))
	for i, c := range out {
		perm[i] = strings.IndexRune(xs, c)
	}
	return x.Permute(perm...)
}

// parseEinsum splits and checks the subscripts: one letter per dimension of
// each operand (an ellipsis standing for the leading ones, right-aligned
// across operands), no repeats, sizes that agree, an output of known
// letters.
func parseEinsum(subscripts string, operands []*Tensor) (ins []string, out string) {
	s := strings.ReplaceAll(subscripts, " ", "")
	lhs, rhs, explicit := strings.Cut(s, "->")
	ins = strings.Split(lhs, ",")
	if len(ins) != len(operands) {
		usage("Einsum", "%q names %d operands, got %d", subscripts, len(ins), len(operands))
	}
	ell := ellipsisLetters(subscripts, ins, operands)
	for k, in := range ins {
		if strings.Contains(in, "...") {
			e := operands[k].Dim() - (len(in) - 3)
			ins[k] = strings.Replace(in, "...", ell[len(ell)-max(e, 0):], 1)
		}
	}
	count := map[rune]int{}
	size := map[rune]int{}
	for k, in := range ins {
		if len(in) != operands[k].Dim() {
			usage("Einsum", "operand %d has %d dimensions %v, %q names %d", k, operands[k].Dim(), operands[k].shape, in, len(in))
		}
		for i, c := range in {
			if !isLetter(c) {
				usage("Einsum", "%q: subscripts must be letters, got %q", subscripts, c)
			}
			n := operands[k].shape[i]
			if j := strings.IndexRune(in, c); j < i && operands[k].shape[j] != n {
				usage("Einsum", "%q: letter %q repeats in operand %d with sizes %d and %d", subscripts, c, k, operands[k].shape[j], n)
			}
			count[c]++
			if m, ok := size[c]; ok && m != n && m != 1 && n != 1 {
				usage("Einsum", "%q: letter %q has sizes %d and %d", subscripts, c, m, n)
			}
			size[c] = max(size[c], n)
		}
	}
	if explicit {
		out = strings.Replace(rhs, "...", ell, 1) // without one, its dimensions are summed
		for _, c := range out {
			if count[c] == 0 || strings.Count(out, string(c)) > 1 {
				usage("Einsum", "%q: output letter %q is repeated or not an input's", subscripts, c)
			}
		}
	} else {
		var once []rune
		for c, n := range count {
			if n == 1 && !strings.ContainsRune(ell, c) {
				once = append(once, c)
			}
		}
		slices.Sort(once)
		out = ell + string(once) // as torch: the ellipsis first
	}
	return ins, out
}

// ellipsisLetters returns stand-ins for the dimensions the ellipses cover,
// as many as the widest covers: letters the subscripts do not use.
func ellipsisLetters(subscripts string, ins []string, operands []*Tensor) string {
	width := 0
	for k, in := range ins {
		if n := strings.Count(in, "..."); n > 1 || strings.Count(in, ".") != 3*n {
			usage("Einsum", "%q: operand %d has a stray '.' or several ellipses", subscripts, k)
		} else if n == 1 {
			e := operands[k].Dim() - (len(in) - 3)
			if e < 0 {
				usage("Einsum", "%q: operand %d %v has fewer dimensions than %q names", subscripts, k, operands[k].shape, in)
			}
			width = max(width, e)
		}
	}
	var free []byte
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
		if len(free) < width && !strings.ContainsRune(subscripts, rune(c)) {
			free = append(free, c)
		}
	}
	if len(free) < width {
		usage("Einsum", "%q: too few unused letters for the %d dimensions of its ellipsis", subscripts, width)
	}
	return string(free)
}

// diagonals takes the diagonal of each pair of dimensions that share a
// letter in xs, which then names the diagonal, moved last.
func diagonals(x *Tensor, xs string) (*Tensor, string) {
	for i := 0; i < len(xs); i++ {
		if j := strings.IndexByte(xs[i+1:], xs[i]); j >= 0 {
			j += i + 1
			x = x.Diagonal(0, i, j)
			xs = xs[:i] + xs[i+1:j] + xs[j+1:] + xs[i:i+1]
			i--
		}
	}
	return x, xs
}

func isLetter(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// sumUnneeded sums x's letters not in need away.
func sumUnneeded(x *Tensor, xs, need string) (*Tensor, string) {
	var axes []int
	var kept []rune
	for i, c := range xs {
		if strings.ContainsRune(need, c) {
			kept = append(kept, c)
		} else {
			axes = append(axes, i)
		}
	}
	if len(axes) == 0 {
		return x, xs
	}
	return x.Sum(axes...), string(kept)
}

// contract multiplies a (letters as) by b (letters bs) and sums the shared
// letters not in need, as one batched MatMul: shared letters in need are
// batch dimensions, shared ones not in need are the contraction.
func contract(a *Tensor, as string, b *Tensor, bs, need string) (*Tensor, string) {
	a, as = sumUnneeded(a, as, need+bs)
	b, bs = sumUnneeded(b, bs, need+as)
	var batch, onlyA, onlyB, inner []rune
	for _, c := range as {
		switch {
		case !strings.ContainsRune(bs, c):
			onlyA = append(onlyA, c)
		case strings.ContainsRune(need, c):
			batch = append(batch, c)
		default:
			inner = append(inner, c)
		}
	}
	for _, c := range bs {
		if !strings.ContainsRune(as, c) {
			onlyB = append(onlyB, c)
		}
	}
	sz := func(c rune) int { // the broadcast size of letter c
		n := 1
		if i := strings.IndexRune(as, c); i >= 0 {
			n = a.shape[i]
		}
		if i := strings.IndexRune(bs, c); i >= 0 {
			n = max(n, b.shape[i])
		}
		return n
	}
	prod := func(cs []rune) int {
		n := 1
		for _, c := range cs {
			n *= sz(c)
		}
		return n
	}
	// arrange permutes x (letters xs) to the order of groups, broadcasts
	// each letter to its size and merges each group into one dimension.
	arrange := func(x *Tensor, xs string, groups ...[]rune) *Tensor {
		var perm, full, merged []int
		for _, g := range groups {
			for _, c := range g {
				perm = append(perm, strings.IndexRune(xs, c))
				full = append(full, sz(c))
			}
			merged = append(merged, prod(g))
		}
		return x.Permute(perm...).Expand(full...).Reshape(merged...)
	}
	p := arrange(a, as, batch, onlyA, inner).MatMul(arrange(b, bs, batch, inner, onlyB))
	letters := slices.Concat(batch, onlyA, onlyB)
	shape := make([]int, len(letters))
	for i, c := range letters {
		shape[i] = sz(c)
	}
	return p.Reshape(shape...), string(letters)
}
