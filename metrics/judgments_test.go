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
		j := Judgments{Starts: []int{0}}
		qrels := Qrels{}
		run := Run{}
		for q := range 1 + r.IntN(8) {
			qid := fmt.Sprintf("q%d", q)
			if r.IntN(5) > 0 {
				m := map[string]int{}
				for d := range r.IntN(40) {
					if r.IntN(2) == 0 {
						g := r.IntN(5) - 1
						doc := fmt.Sprintf("d%d", d)
						m[doc] = g
						j.IDs += doc
						j.Ends = append(j.Ends, uint32(len(j.IDs)))
						j.Grades = append(j.Grades, int32(g))
					}
				}
				qrels[qid] = m
				j.QIDs = append(j.QIDs, qid)
				j.Starts = append(j.Starts, len(j.Ends))
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
		if jo, err := JudgmentsOf(qrels); err != nil || !cmp.Equal(qrels, jo.Qrels()) {
			t.Fatalf("case %d: JudgmentsOf: %v, %v", i, err, cmp.Diff(qrels, jo.Qrels()))
		}
	}
}

// TestJudgmentsEvaluatorErrors: lists that do not fit together (lengths,
// starts, ends going back) and a query listed twice are errors.
func TestJudgmentsEvaluatorErrors(t *testing.T) {
	for _, j := range []Judgments{
		{QIDs: []string{"a"}},
		{QIDs: []string{"a"}, Starts: []int{0, 1}, IDs: "d", Ends: []uint32{1}},
		{QIDs: []string{"a"}, Starts: []int{0, 1}, IDs: "d", Ends: []uint32{2}, Grades: []int32{1}},
		{QIDs: []string{"a"}, Starts: []int{1, 1}, IDs: "d", Ends: []uint32{1}, Grades: []int32{1}},
		{QIDs: []string{"a", "b"}, Starts: []int{0, 2, 1}, IDs: "de", Ends: []uint32{1, 2}, Grades: []int32{1, 1}},
		{QIDs: []string{"a"}, Starts: []int{0, 2}, IDs: "de", Ends: []uint32{2, 1}, Grades: []int32{1, 1}},
		{QIDs: []string{"a", "a"}, Starts: []int{0, 0, 0}},
	} {
		if _, err := NewJudgmentsEvaluator(&j, nil, EvalOptions{}); err == nil {
			t.Errorf("%+v: no error", j)
		}
	}
}
