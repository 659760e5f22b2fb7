package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestRankMatchesSort checks rank's counting of positive documents' ranks
// against sorting every result (SortRun, then the grade of each), on random
// queries with tied scores, NaN and signed zeros, shuffled or in rank
// order, with and without MaxDocs.
func TestRankMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	scores := []float64{0, math.Copysign(0, -1), 1, 0.5, -2, math.NaN(), 3.25}
	for i := range 400 {
		n := r.IntN(120)
		if i%10 == 0 {
			n = 400 + r.IntN(400) // more positives than rank counts
		}
		qr := map[string]int{}
		var rs []Result
		for j := range n {
			doc := fmt.Sprintf("d%d.%d", r.IntN(50), j) // distinct
			s := scores[r.IntN(len(scores))]
			if r.IntN(2) == 0 {
				s = float64(r.IntN(5)) / 4
			}
			rs = append(rs, Result{DocID: doc, Score: s})
			if r.IntN(3) == 0 {
				qr[doc] = r.IntN(5) - 1 // -1 … 3
			}
		}
		if i%4 == 1 {
			SortRun(rs) // the path for runs written in rank order
		}
		maxDocs := 0
		if i%3 == 0 {
			maxDocs = r.IntN(n + 2)
		}
		e := &Evaluator{opt: EvalOptions{MaxDocs: maxDocs}}
		got := e.rank(qr, slices.Clone(rs), nil)
		want := e.rankSorted(qr, slices.Clone(rs), make([]int, len(got)))
		// Only positive grades matter to the measures; counting leaves the
		// others "unjudged".
		for _, gs := range [][]int{want, got} {
			for k, g := range gs {
				if g <= 0 {
					gs[k] = unjudged
				}
			}
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("query %d (n %d, MaxDocs %d): grades differ (-sorted +counted):\n%s", i, n, maxDocs, diff)
		}
	}
}
