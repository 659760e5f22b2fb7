package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// firstRepeat returns the indexes of the first document id of rs that
// repeats, at its first occurrence and its repetition, or -1, -1.
func firstRepeat(rs []Result) (first, again int) {
	seen := map[string]int{}
	for i, r := range rs {
		if k, ok := seen[r.DocID]; ok {
			return k, i
		}
		seen[r.DocID] = i
	}
	return -1, -1
}

// TestScoreChecked holds ScoreChecked (one pass for the grades and the
// check for repeated documents) to Score and a map: on random queries,
// judged or not, with a document repeated in some (judged or not, near
// or far apart), ties, NaN, more positives than rank counts and MaxDocs,
// over both kinds of Evaluator, it finds the same first repeat as a map
// and otherwise scores what Score scores.
func TestScoreChecked(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var ms []Measure
	for _, n := range []string{"map", "ndcg", "ndcg_cut_10", "P_5", "recip_rank", "recall_100", "Rprec"} {
		m, err := ParseMeasure(n)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	scores := []float64{0, math.Copysign(0, -1), 1, 0.5, math.NaN(), 3.25}
	repeats := 0
	for i := range 600 {
		qrels := Qrels{}
		qr := map[string]int{}
		nj := r.IntN(300)
		if i%20 == 0 {
			nj = 1500 // more positives than rank counts
		}
		for range nj {
			qr[fmt.Sprintf("doc%d", r.IntN(2000))] = r.IntN(5) - 1
		}
		if i%6 != 5 {
			qrels["q"] = qr
		}
		n := r.IntN(400)
		if i%20 == 0 {
			n = 1200
		}
		rs := make([]Result, 0, n+2)
		for _, d := range r.Perm(2000)[:min(n, 2000)] {
			s := scores[r.IntN(len(scores))]
			if r.IntN(2) == 0 {
				s = r.Float64()
			}
			rs = append(rs, Result{DocID: fmt.Sprintf("doc%d", d), Score: s})
		}
		if i%2 == 0 {
			SortRun(rs)
		}
		if len(rs) > 0 && i%3 == 0 {
			// A repeat of a random result, anywhere after it, and
			// sometimes a second repeat after that.
			for range 1 + r.IntN(2) {
				k := r.IntN(len(rs))
				at := k + 1 + r.IntN(len(rs)-k)
				rs = slices.Insert(rs, at, Result{DocID: rs[k].DocID, Score: rs[r.IntN(len(rs))].Score})
			}
		}
		opt := EvalOptions{MaxDocs: []int{0, 0, 7}[i%3], RelLevel: 1 + i%4/3}
		j, err := JudgmentsOf(qrels)
		if err != nil {
			t.Fatal(err)
		}
		mapE, err := NewEvaluator(qrels, ms, opt)
		if err != nil {
			t.Fatal(err)
		}
		jE, err := NewJudgmentsEvaluator(j, ms, opt)
		if err != nil {
			t.Fatal(err)
		}
		wantFirst, wantAgain := firstRepeat(rs)
		if wantAgain >= 0 {
			repeats++
		}
		for name, e := range map[string]*Evaluator{"map": mapE, "judgments": jE} {
			q, judged, first, again := e.ScoreChecked("q", slices.Clone(rs))
			if first != wantFirst || again != wantAgain {
				t.Fatalf("case %d, %s: repeat at %d, %d; want %d, %d", i, name, first, again, wantFirst, wantAgain)
			}
			if wantAgain >= 0 {
				if judged || !cmp.Equal(q, QueryResult{}) {
					t.Fatalf("case %d, %s: a repeat scored %+v, judged %v", i, name, q, judged)
				}
				continue
			}
			wq, wjudged := e.Score("q", slices.Clone(rs))
			if judged != wjudged {
				t.Fatalf("case %d, %s: judged %v, Score %v", i, name, judged, wjudged)
			}
			if diff := cmp.Diff(wq, q); diff != "" {
				t.Fatalf("case %d, %s (%d judgments, %d results, %+v): -Score +ScoreChecked:\n%s", i, name, nj, len(rs), opt, diff)
			}
		}
	}
	if repeats < 100 {
		t.Errorf("%d cases of 600 with a repeat: the test needs more", repeats)
	}
}

// BenchmarkScoreChecked scores one query of the dense shape: 1,000 results
// in rank order, 500 judgments, 350 of the results judged.
func BenchmarkScoreChecked(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	qr := map[string]int{}
	var rs []Result
	for i := range 1000 {
		doc := fmt.Sprintf("doc%07d", r.IntN(5000000))
		rs = append(rs, Result{DocID: doc, Score: 1 - float64(i)/1000})
		if i%20 < 7 {
			qr[doc] = r.IntN(3)
		}
	}
	for len(qr) < 500 {
		qr[fmt.Sprintf("doc%07d", r.IntN(5000000))] = r.IntN(3)
	}
	j, err := JudgmentsOf(Qrels{"q": qr})
	if err != nil {
		b.Fatal(err)
	}
	ms := []Measure{}
	for _, n := range []string{"map", "ndcg_cut_10"} {
		m, err := ParseMeasure(n)
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, m)
	}
	e, err := NewJudgmentsEvaluator(j, ms, EvalOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, _, again := e.ScoreChecked("q", rs); again >= 0 {
			b.Fatal("a repeat")
		}
	}
}
