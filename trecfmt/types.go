package trecfmt

import (
	"cmp"
	"slices"
	"strings"
)

// Qrels holds judgments: query id → document id → grade. It is an alias of
// the plain map type, so qrels read here are assignable to metrics.Qrels
// (and back) without this package knowing of metrics.
type Qrels = map[string]map[string]int

// Result is one run line's document and score.
type Result struct {
	DocID string
	Score float64
}

// Run holds a whole run: query id → results in file order.
type Run map[string][]Result

// sortRanked orders rs as trec_eval ranks a query's results, which is the
// order WriteRun numbers them in: score descending, ties by document id
// descending (byte-wise, as C's strcmp). metrics.SortRun is the same order
// (a test in cmd/retrievalbench keeps them equal).
func sortRanked(rs []Result) {
	slices.SortFunc(rs, func(a, b Result) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(b.DocID, a.DocID)
	})
}
