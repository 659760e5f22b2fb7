package metrics

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJudgmentsEvaluator checks the evaluator over compact judgments
// against the one over a Qrels map on random qrels and runs (graded, with
// negative grades, queries without judgments or without results), with
// and without Complete, MaxDocs and a relevance level of 2: the same
// result, value for value.
func TestJudgmentsEvaluator(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	all := []Measure{}
	for _, n := range []string{"map", "ndcg_cut_10", "P_5", "recip_rank", "Rprec", "ndcg"} {
		m, err := ParseMeasure(n)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m)
	}
	for i := range 200 {
		var j Judgments
		qrels := Qrels{}
		run := Run{}
		for q := range 1 + r.IntN(8) {
			qid := fmt.Sprintf("q%d", q)
			if r.IntN(5) > 0 {
				m := map[string]int{}
				var docs []string
				var grades []int32
				for d := range r.IntN(40) {
					if r.IntN(2) == 0 {
						g := r.IntN(5) - 1
						doc := fmt.Sprintf("d%d", d)
						m[doc] = g
						docs = append(docs, doc)
						grades = append(grades, int32(g))
					}
				}
				qrels[qid] = m
				j.QIDs = append(j.QIDs, qid)
				j.Docs = append(j.Docs, docs)
				j.Grades = append(j.Grades, grades)
			}
			if r.IntN(5) > 0 {
				var rs []Result
				for _, d := range r.Perm(50)[:r.IntN(50)] {
					rs = append(rs, Result{DocID: fmt.Sprintf("d%d", d), Score: float64(r.IntN(10))})
				}
				run[qid] = rs
			}
		}
		opt := EvalOptions{Complete: i%2 == 0, RelLevel: 1 + i%3/2, MaxDocs: []int{0, 0, 5}[i%3]}
		want, err := Evaluate(qrels, run, all, opt)
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewJudgmentsEvaluator(&j, all, opt)
		if err != nil {
			t.Fatal(err)
		}
		for qid, rs := range run {
			q, judged := e.Score(qid, append([]Result(nil), rs...))
			if err := e.Record(qid, q, judged); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(want, e.Result()); diff != "" {
			t.Fatalf("case %d (%+v): -qrels map +judgments:\n%s", i, opt, diff)
		}
		if diff := cmp.Diff(qrels, j.Qrels()); diff != "" {
			t.Fatalf("case %d: Judgments.Qrels: %s", i, diff)
		}
	}
}

// TestJudgmentsEvaluatorErrors: lists of different lengths and a query
// listed twice are errors.
func TestJudgmentsEvaluatorErrors(t *testing.T) {
	for _, j := range []Judgments{
		{QIDs: []string{"a"}},
		{QIDs: []string{"a"}, Docs: [][]string{{"d"}}, Grades: [][]int32{{}}},
		{QIDs: []string{"a", "a"}, Docs: [][]string{{}, {}}, Grades: [][]int32{{}, {}}},
	} {
		if _, err := NewJudgmentsEvaluator(&j, nil, EvalOptions{}); err == nil {
			t.Errorf("%+v: no error", j)
		}
	}
}
