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
// queries with tied scores, NaN and signed zeros, spread scores of every
// magnitude (the bucket table), shuffled or in rank order, with and
// without MaxDocs.
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
			if r.IntN(2) == 0 || (i%5 == 2 && math.IsNaN(s)) {
				s = float64(r.IntN(5)) / 4 // ties without NaN: rank's float search
			}
			if i%7 == 3 {
				// Spread scores for rank's bucket table, of every
				// magnitude: spans that overflow, tiny spans, infinities.
				scale := []float64{1e-310, 1e-300, 1, 1e6, 1e300, math.MaxFloat64}[i/7%6]
				s = (2*r.Float64() - 1) * scale
				if r.IntN(50) == 0 {
					s = math.Inf(1 - 2*r.IntN(2))
				}
				if r.IntN(10) == 0 && j > 0 {
					s = rs[r.IntN(j)].Score // a tie
				}
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
		var tab gradeTable
		tab.build(qr, 1, 0)
		got := e.rank(&tab, slices.Clone(rs), nil, nil)
		// The reference: sort everything, grades from the map.
		sorted := slices.Clone(rs)
		SortRun(sorted)
		want := make([]int, len(got))
		for k := range want {
			want[k] = gradeOf(qr, sorted[k].DocID)
		}
		// Only positive grades matter to the measures; counting leaves the
		// others "unjudged".
		for _, gs := range [][]int{want, got} {
			for k, g := range gs {
				if g <= 0 {
					gs[k] = Unjudged
				}
			}
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("query %d (n %d, MaxDocs %d): grades differ (-sorted +counted):\n%s", i, n, maxDocs, diff)
		}
	}
}

// TestGradeTable checks the table's grades against the map's and its
// summary against summarize, on random judgments of every size up to a few
// hundred, reusing one table as Score does.
func TestGradeTable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var tab gradeTable
	for i := range 300 {
		qr := map[string]int{}
		for range r.IntN(i + 1) {
			qr[fmt.Sprintf("doc%d", r.IntN(2000))] = r.IntN(6) - 2 // -2 … 3
		}
		lvl := 1 + r.IntN(3)
		got := tab.build(qr, lvl, 0)
		want := summarize(qr, lvl)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("judgments %d (%d docs): summary differs (-summarize +table):\n%s", i, len(qr), diff)
		}
		for k := range 2000 {
			doc := fmt.Sprintf("doc%d", k)
			w := gradeOf(qr, doc)
			if g, ok := qr[doc]; ok && g == Unjudged {
				w = pooledUnjudged // judged -1: in the pool, not judged
			}
			if g := tab.grade(doc); g != w {
				t.Fatalf("judgments %d: %s graded %d, map %d", i, doc, g, w)
			}
		}
	}
}

// TestInRankOrder checks inRankOrder against slices.IsSortedFunc with
// compareResults on sorted lists with one swap or none, with ties, NaN and
// signed zeros.
func TestInRankOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	scores := []float64{0, math.Copysign(0, -1), 1, 0.5, math.NaN(), 2}
	sorted := 0
	for i := range 3000 {
		n := r.IntN(12)
		rs := make([]Result, n)
		for k := range rs {
			rs[k] = Result{DocID: fmt.Sprintf("d%d", r.IntN(4)), Score: scores[r.IntN(len(scores))]}
		}
		SortRun(rs)
		if n > 1 && i%2 == 0 {
			k := r.IntN(n - 1)
			rs[k], rs[k+1] = rs[k+1], rs[k]
		}
		want := slices.IsSortedFunc(rs, compareResults)
		if want {
			sorted++
		}
		if got := inRankOrder(rs); got != want {
			t.Fatalf("%v: inRankOrder %v, IsSortedFunc %v", rs, got, want)
		}
	}
	if sorted == 0 || sorted == 3000 {
		t.Errorf("%d of 3000 lists sorted: the test needs both kinds", sorted)
	}
}
