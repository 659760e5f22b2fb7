package judge

import (
	"math/bits"
	"sort"
	"strings"
)

// CompositeThreshold is the partial ratio (0..100) at which a blob is taken
// to contain a gold text: the seed harness's fuzzy-match threshold.
const CompositeThreshold = 85

// maxGoldChars bounds the gold text compared with a blob: its first
// maxGoldChars bytes (after whitespace is collapsed) stand for it.
const maxGoldChars = 1000

// ContentMatches reports whether blob contains gold, by PartialRatio of
// the whitespace-collapsed texts at CompositeThreshold or above.
func ContentMatches(gold, blob string) bool {
	return PartialRatio(collapse(gold), collapse(blob)) >= CompositeThreshold
}

// PartialRatio is the best similarity (0..100) of the shorter text to an
// equally long window of the longer one, the similarity being the
// normalised indel ratio 200·LCS/(len(a)+len(b)) — fuzzywuzzy's
// partial_ratio in shape. Windows are aligned where 12-byte pieces of the
// shorter text occur in the longer one (the 32 most supported alignments),
// as fuzzywuzzy aligns them on matching blocks; an exact substring scores
// 100. The shorter text is cut to its first maxGoldChars bytes.
func PartialRatio(a, b string) int {
	s, t := a, b
	if len(s) > len(t) {
		s, t = t, s
	}
	if len(s) > maxGoldChars {
		s = s[:maxGoldChars]
	}
	if s == "" {
		return 0
	}
	if strings.Contains(t, s) {
		return 100
	}
	const piece, step, maxAnchors = 12, 8, 32
	votes := map[int]int{}
	if len(s) < piece {
		for i := 0; i+len(s) <= len(t); i++ {
			votes[i]++
		}
	} else {
		for j := 0; j+piece <= len(s); j += step {
			p := s[j : j+piece]
			for from, n := 0, 0; n < 64; n++ {
				k := strings.Index(t[from:], p)
				if k < 0 {
					break
				}
				votes[from+k-j]++
				from += k + 1
			}
		}
	}
	offsets := make([]int, 0, len(votes))
	for o := range votes {
		offsets = append(offsets, o)
	}
	sort.Slice(offsets, func(i, j int) bool {
		if votes[offsets[i]] != votes[offsets[j]] {
			return votes[offsets[i]] > votes[offsets[j]]
		}
		return offsets[i] < offsets[j]
	})
	if len(offsets) > maxAnchors {
		offsets = offsets[:maxAnchors]
	}
	best := 0
	for _, o := range offsets {
		lo := min(max(o, 0), len(t))
		hi := min(lo+len(s), len(t))
		w := t[lo:hi]
		if r := ratio(s, w); r > best {
			best = r
		}
	}
	return best
}

// ratio is the normalised indel similarity of a and b, 0..100, rounded
// down.
func ratio(a, b string) int {
	if len(a)+len(b) == 0 {
		return 100
	}
	return 200 * LCS(a, b) / (len(a) + len(b))
}

// LCS is the length of the longest common subsequence of the bytes of a and
// b, by the bit-parallel algorithm of Hyyrö (2004): O(len(a)/64 · len(b)).
func LCS(a, b string) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	words := (len(a) + 63) / 64
	var peq [256][]uint64
	for i := 0; i < len(a); i++ {
		c := a[i]
		if peq[c] == nil {
			peq[c] = make([]uint64, words)
		}
		peq[c][i/64] |= 1 << (i % 64)
	}
	v := make([]uint64, words)
	for i := range v {
		v[i] = ^uint64(0)
	}
	for j := 0; j < len(b); j++ {
		m := peq[b[j]]
		if m == nil {
			continue
		}
		var carry uint64
		for i := range v {
			u := v[i] & m[i]
			sum, c := bits.Add64(v[i], u, carry)
			carry = c
			v[i] = sum | (v[i] &^ m[i])
		}
	}
	zeros := 0
	for i := 0; i < len(a); i++ {
		if v[i/64]&(1<<(i%64)) == 0 {
			zeros++
		}
	}
	return zeros
}

// collapse turns every run of white space into one space and trims.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
