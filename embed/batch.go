package embed

import "sort"

// batches groups text indices into batches of at most size, ordered by token
// length (longest first, ties by index) so each batch pads to a length close
// to all of its members. The order is a pure function of lengths and size.
func batches(lengths []int, size int) [][]int {
	if size < 1 {
		size = 1
	}
	idx := make([]int, len(lengths))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return lengths[idx[a]] > lengths[idx[b]] })
	var out [][]int
	for len(idx) > 0 {
		n := min(size, len(idx))
		out = append(out, idx[:n:n])
		idx = idx[n:]
	}
	return out
}
