package metrics

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestEvaluateQueryAveraging(t *testing.T) {
	qrels := Qrels{
		"q1": {"a": 1},
		"q2": {"b": 1},         // judged, no results
		"q3": {"c": 0, "d": 0}, // judged, nothing relevant, has results
	}
	run := Run{
		"q1": {{"a", 1}, {"z", 0.5}},
		"q3": {{"c", 1}},
		"q4": {{"a", 1}}, // results but no judgments: ignored
	}
	m := ms(t, "map", "P@1", "recall@10")
	tests := []struct {
		name, reason string
		opt          EvalOptions
		wantQIDs     []string
		wantMean     []float64
		wantCounts   [4]int // NumQ, NumRet, NumRel, NumRelRet
	}{
		{
			name:       "default",
			reason:     "trec_eval averages the queries with judgments and results (q1, q3); q4 has no judgments",
			wantQIDs:   []string{"q1", "q3"},
			wantMean:   []float64{0.5, 0.5, 0.5},
			wantCounts: [4]int{2, 3, 1, 1},
		},
		{
			name:       "complete",
			reason:     "-c: every judged query counts; q2 has no results and scores 0",
			opt:        EvalOptions{Complete: true},
			wantQIDs:   []string{"q1", "q2", "q3"},
			wantMean:   []float64{1.0 / 3, 1.0 / 3, 1.0 / 3},
			wantCounts: [4]int{3, 3, 2, 1},
		},
		{
			name:       "max_docs",
			reason:     "-M1 keeps only the top result of each query",
			opt:        EvalOptions{MaxDocs: 1},
			wantQIDs:   []string{"q1", "q3"},
			wantMean:   []float64{0.5, 0.5, 0.5},
			wantCounts: [4]int{2, 2, 1, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Evaluate(qrels, run, m, tt.opt)
			require.NoError(t, err)
			var qids []string
			for _, q := range res.Queries {
				qids = append(qids, q.QID)
			}
			if diff := cmp.Diff(tt.wantQIDs, qids); diff != "" {
				t.Errorf("%s: queries (-want +got):\n%s", tt.reason, diff)
			}
			if diff := cmp.Diff(tt.wantMean, res.Mean, approx); diff != "" {
				t.Errorf("%s: means (-want +got):\n%s", tt.reason, diff)
			}
			got := [4]int{res.NumQ, res.NumRet, res.NumRel, res.NumRelRet}
			if got != tt.wantCounts {
				t.Errorf("%s: counts = %v, want %v", tt.reason, got, tt.wantCounts)
			}
		})
	}
}

func TestEvaluatorErrors(t *testing.T) {
	qrels := Qrels{"q": {"a": 1}}
	e, err := NewEvaluator(qrels, ms(t, "map"), EvalOptions{})
	require.NoError(t, err)
	require.NoError(t, e.Add("q", []Result{{"a", 1}}))
	if err := e.Add("q", []Result{{"b", 1}}); !errors.Is(err, ErrDuplicateQuery) {
		t.Errorf("second Add of a query: err = %v, want ErrDuplicateQuery", err)
	}
	if err := e.Add("r", []Result{{"a", 1}, {"a", 2}}); err == nil {
		t.Errorf("duplicate document within a query: want an error")
	}
	if _, err := NewEvaluator(qrels, []Measure{{&Def{Name: "bpref"}, 0}}, EvalOptions{}); err == nil {
		t.Errorf("unknown measure: want an error")
	}
	if _, err := NewEvaluator(qrels, nil, EvalOptions{MaxDocs: -1}); err == nil {
		t.Errorf("negative MaxDocs: want an error")
	}
}

func TestEvaluateDoesNotModifyRun(t *testing.T) {
	run := Run{"q": {{"a", 1}, {"b", 2}}}
	_, err := Evaluate(Qrels{"q": {"a": 1}}, run, ms(t, "map"), EvalOptions{})
	require.NoError(t, err)
	if diff := cmp.Diff([]Result{{"a", 1}, {"b", 2}}, run["q"]); diff != "" {
		t.Errorf("Evaluate reordered the caller's run (-want +got):\n%s", diff)
	}
}

// TestJudgedOnly: trec_eval -J ranks only the judged results (grade ≥ 0)
// among the first MaxDocs in score order, so an unjudged result above a
// relevant one no longer pushes it down, and num_ret counts the judged.
func TestJudgedOnly(t *testing.T) {
	qrels := Qrels{"q": {"r1": 1, "n1": 0, "r2": 2, "x": -1}}
	// Out of rank order on purpose: z (unjudged) ranks first, then r1,
	// n1, x (judged as unjudged), r2, y.
	run := Run{"q": {{"y", 0.1}, {"r2", 0.5}, {"n1", 0.7}, {"z", 0.9}, {"x", 0.6}, {"r1", 0.8}}}
	m := ms(t, "P@1", "P@2", "mrr")
	for _, tt := range []struct {
		name   string
		opt    EvalOptions
		want   []float64
		numRet int
		relRet int
	}{
		{"all results", EvalOptions{}, []float64{0, 0.5, 0.5}, 6, 2},
		{"judged only", EvalOptions{JudgedOnly: true}, []float64{1, 0.5, 1}, 3, 2},
		{"judged among the first 3", EvalOptions{JudgedOnly: true, MaxDocs: 3}, []float64{1, 0.5, 1}, 2, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Evaluate(qrels, run, m, tt.opt)
			require.NoError(t, err)
			require.Len(t, res.Queries, 1)
			q := res.Queries[0]
			require.Equal(t, tt.want, q.Values)
			require.Equal(t, tt.numRet, q.NumRet)
			require.Equal(t, tt.relRet, q.NumRelRet)
		})
	}
}

// TestRelevantRanks: the 1-based ranks of the grades at or above the
// level, the same on a second call.
func TestRelevantRanks(t *testing.T) {
	r := &Ranking{Grades: []int{0, 2, Unjudged, 1, 3}, Level: 2}
	require.Equal(t, []int32{2, 5}, r.RelevantRanks())
	require.Equal(t, []int32{2, 5}, r.RelevantRanks())
	require.Empty(t, (&Ranking{Grades: []int{0, 1}, Level: 2}).RelevantRanks())
}

// TestDiscountTable: the table holds exactly math.Log2(i+2), so nDCG's
// values (and the golden files') do not move; past it, the same formula.
func TestDiscountTable(t *testing.T) {
	for i := range len(discounts) + 10 {
		if got, want := Discount(i), math.Log2(float64(i+2)); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Discount(%d) = %v, want %v", i, got, want)
		}
	}
}
