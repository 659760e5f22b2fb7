package context7api

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// bm25 is an in-memory Okapi BM25 index (k1 = 1.2, b = 0.75) over the docs
// of one library: the doc's id, title and text are its terms.
type bm25 struct {
	tf    []map[string]int
	len   []int
	avg   float64
	df    map[string]int
	n     int
	order []int // doc indexes by id, the tie-break
}

func newBM25(docs []Doc) *bm25 {
	x := &bm25{df: map[string]int{}, n: len(docs)}
	total := 0
	for _, d := range docs {
		tf := map[string]int{}
		terms := tokens(d.ID + " " + d.Title + " " + d.Text)
		for _, t := range terms {
			tf[t]++
		}
		for t := range tf {
			x.df[t]++
		}
		x.tf = append(x.tf, tf)
		x.len = append(x.len, len(terms))
		total += len(terms)
	}
	if x.n > 0 {
		x.avg = float64(total) / float64(x.n)
	}
	x.order = make([]int, x.n)
	for i := range x.order {
		x.order[i] = i
	}
	sort.SliceStable(x.order, func(i, j int) bool { return docs[x.order[i]].ID < docs[x.order[j]].ID })
	return x
}

// top returns the indexes of the k best docs for query, best first; docs
// that match no query term are left out; ties go to the smaller doc id.
func (x *bm25) top(query string, k int) []int {
	const k1, b = 1.2, 0.75
	seen := map[string]bool{}
	var q []string
	for _, t := range tokens(query) {
		if !seen[t] && x.df[t] > 0 {
			seen[t] = true
			q = append(q, t)
		}
	}
	score := make([]float64, x.n)
	for _, t := range q {
		idf := math.Log(1 + (float64(x.n)-float64(x.df[t])+0.5)/(float64(x.df[t])+0.5))
		for i, tf := range x.tf {
			f := float64(tf[t])
			if f == 0 {
				continue
			}
			score[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(x.len[i])/x.avg))
		}
	}
	idx := make([]int, 0, x.n)
	for _, i := range x.order {
		if score[i] > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(i, j int) bool { return score[idx[i]] > score[idx[j]] })
	if len(idx) > k {
		idx = idx[:k]
	}
	return idx
}

// tokens lowercases s and splits it into runs of letters and digits, so a
// dotted name ("pandas.DataFrame.where") gives its parts.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
