package metrics

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
)

var approx = cmpopts.EquateApprox(0, 1e-12)

func ms(t *testing.T, names ...string) []Measure {
	t.Helper()
	out := make([]Measure, len(names))
	for i, n := range names {
		m, err := ParseMeasure(n)
		require.NoError(t, err, n)
		out[i] = m
	}
	return out
}

func TestSortRun(t *testing.T) {
	tests := []struct {
		name, reason string
		in           []Result
		want         []string
	}{
		{"score_desc", "higher score ranks first", []Result{{"a", 1}, {"b", 3}, {"c", 2}}, []string{"b", "c", "a"}},
		{"ties_docid_desc", "equal scores: trec_eval breaks ties by document id descending",
			[]Result{{"a", 1}, {"b", 2}, {"c", 1}, {"d", 2}}, []string{"d", "b", "c", "a"}},
		{"bytewise", "ids compare byte-wise like strcmp: 'B' (0x42) < 'a' (0x61), '10' < '9'",
			[]Result{{"a", 0}, {"B", 0}, {"10", 0}, {"9", 0}}, []string{"a", "B", "9", "10"}},
		{"rank_ignored", "the input order (a file's rank column) does not matter",
			[]Result{{"x", 0.5}, {"y", 0.7}}, []string{"y", "x"}},
		{"nan_last", "NaN sorts after every number", []Result{{"n", math.NaN()}, {"a", -1}}, []string{"a", "n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			SortRun(tt.in)
			var got []string
			for _, r := range tt.in {
				got = append(got, r.DocID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: order mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestScore(t *testing.T) {
	log3 := math.Log2(3)
	tests := []struct {
		name, reason string
		ranked       []string
		qrels        map[string]int
		opt          Options
		measures     []string
		want         []float64
	}{
		{
			name:     "binary_basics",
			reason:   "R=3; relevant at ranks 1 and 3: AP=(1/1+2/3)/3, Rprec looks at 3 docs",
			ranked:   []string{"a", "x", "b", "y"},
			qrels:    map[string]int{"a": 1, "b": 1, "c": 1, "x": 0},
			measures: []string{"map", "map@2", "rprec", "mrr", "recall@2", "recall@10", "hit@1", "P@2", "P@4", "coverage"},
			want:     []float64{(1 + 2.0/3) / 3, 1.0 / 3, 2.0 / 3, 1, 1.0 / 3, 2.0 / 3, 1, 0.5, 0.5, 1},
		},
		{
			name:     "graded_ndcg",
			reason:   "gain = grade, discount log2(rank+1), ideal from all judged grades 3,2,1 (b is never retrieved)",
			ranked:   []string{"c", "a", "d", "x"},
			qrels:    map[string]int{"a": 3, "b": 2, "c": 0, "d": 1},
			measures: []string{"ndcg", "ndcg@2", "ndcg@1"},
			want: []float64{
				(3/log3 + 1.0/2) / (3 + 2/log3 + 1.0/2),
				(3 / log3) / (3 + 2/log3),
				0,
			},
		},
		{
			name:     "short_list_precision",
			reason:   "P@k divides by k even when fewer than k docs were retrieved; P without k divides by the list length",
			ranked:   []string{"a", "b"},
			qrels:    map[string]int{"a": 1},
			measures: []string{"P@5", "P@1", "P", "hit@5", "recall@5"},
			want:     []float64{0.2, 1, 0.5, 1, 1},
		},
		{
			name:     "no_relevant_docs",
			reason:   "a query whose judgments are all non-relevant scores 0 everywhere (no division by R=0)",
			ranked:   []string{"a", "b"},
			qrels:    map[string]int{"a": 0, "b": 0},
			measures: []string{"map", "recall@10", "rprec", "ndcg", "ndcg@10", "mrr", "P@1", "pass@1-needle"},
			want:     []float64{0, 0, 0, 0, 0, 0, 0, 0},
		},
		{
			name:     "empty_run",
			reason:   "no results: every measure is 0",
			ranked:   nil,
			qrels:    map[string]int{"a": 2},
			measures: []string{"map", "recall@10", "rprec", "ndcg", "mrr", "P@5", "P", "hit@10", "coverage", "pass@1-needle"},
			want:     []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		},
		{
			name:     "mrr_cutoff",
			reason:   "first relevant at rank 3: mrr 1/3, mrr@2 0",
			ranked:   []string{"x", "y", "a"},
			qrels:    map[string]int{"a": 1},
			measures: []string{"mrr", "mrr@2", "mrr@3", "hit@2", "hit"},
			want:     []float64{1.0 / 3, 0, 1.0 / 3, 0, 1},
		},
		{
			name:     "needle_not_first",
			reason:   "rank 1 is relevant but not the needle (highest grade)",
			ranked:   []string{"o", "n"},
			qrels:    map[string]int{"n": 3, "o": 1},
			measures: []string{"pass@1-needle", "hit@1", "coverage"},
			want:     []float64{0, 1, 1},
		},
		{
			name:     "needle_first",
			reason:   "rank 1 carries the highest judged grade",
			ranked:   []string{"n", "o"},
			qrels:    map[string]int{"n": 3, "o": 1},
			measures: []string{"pass@1-needle"},
			want:     []float64{1},
		},
		{
			name:     "rel_level_2",
			reason:   "-l2: grade 1 is not relevant (R=1, first relevant at rank 2) but nDCG still gains from it",
			ranked:   []string{"a", "b"},
			qrels:    map[string]int{"a": 1, "b": 2},
			opt:      Options{RelLevel: 2},
			measures: []string{"mrr", "P@1", "recall@1", "map", "ndcg"},
			want:     []float64{0.5, 0, 0, 0.5, (1 + 2/log3) / (2 + 1/log3)},
		},
		{
			name:     "negative_grade",
			reason:   "a negative grade (judged as unjudged) is neither relevant nor a gain",
			ranked:   []string{"u", "a"},
			qrels:    map[string]int{"u": -1, "a": 1},
			measures: []string{"mrr", "ndcg", "P@1"},
			want:     []float64{0.5, 1 / log3, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Score(tt.ranked, tt.qrels, ms(t, tt.measures...), tt.opt)
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("%s: %v (-want +got):\n%s", tt.reason, tt.measures, diff)
			}
		})
	}
}

func TestScoreErrors(t *testing.T) {
	tests := []struct {
		name, reason string
		ranked       []string
		measures     []Measure
	}{
		{"duplicate_doc", "a doc id twice in one query's run is an error", []string{"a", "b", "a"}, []Measure{{MAP, 0}}},
		{"unknown_measure", "a measure name Score does not know", []string{"a"}, []Measure{{&Def{Name: "bpref"}, 0}}},
		{"negative_cutoff", "cutoffs are positive", []string{"a"}, []Measure{{Precision, -1}}},
		{"cutoff_not_allowed", "rprec takes no cutoff", []string{"a"}, []Measure{{RPrec, 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Score(tt.ranked, map[string]int{"a": 1}, tt.measures, Options{}); err == nil {
				t.Errorf("%s: want an error", tt.reason)
			}
		})
	}
}

func TestParseMeasure(t *testing.T) {
	tests := []struct {
		in, reason string
		want       Measure
		str, trec  string
	}{
		{"hit@10", "own spelling", Measure{Hit, 10}, "hit@10", "success_10"},
		{"success_10", "trec_eval spelling", Measure{Hit, 10}, "hit@10", "success_10"},
		{"recall@5", "", Measure{Recall, 5}, "recall@5", "recall_5"},
		{"recall_5", "", Measure{Recall, 5}, "recall@5", "recall_5"},
		{"P@5", "", Measure{Precision, 5}, "P@5", "P_5"},
		{"p@5", "lower-case p is accepted", Measure{Precision, 5}, "P@5", "P_5"},
		{"P_5", "", Measure{Precision, 5}, "P@5", "P_5"},
		{"mrr", "", Measure{MRR, 0}, "mrr", "recip_rank"},
		{"recip_rank", "", Measure{MRR, 0}, "mrr", "recip_rank"},
		{"mrr@10", "trec_eval has no cut-off reciprocal rank", Measure{MRR, 10}, "mrr@10", ""},
		{"ndcg@10", "", Measure{NDCG, 10}, "ndcg@10", "ndcg_cut_10"},
		{"ndcg_cut_10", "", Measure{NDCG, 10}, "ndcg@10", "ndcg_cut_10"},
		{"ndcg", "whole list", Measure{NDCG, 0}, "ndcg", "ndcg"},
		{"map", "", Measure{MAP, 0}, "map", "map"},
		{"map@10", "", Measure{MAP, 10}, "map@10", "map_cut_10"},
		{"map_cut_10", "", Measure{MAP, 10}, "map@10", "map_cut_10"},
		{"rprec", "", Measure{RPrec, 0}, "rprec", "Rprec"},
		{"Rprec", "", Measure{RPrec, 0}, "rprec", "Rprec"},
		{"pass@1-needle", "the @ is part of the name", Measure{PassNeedle, 0}, "pass@1-needle", ""},
		{"coverage", "", Measure{Coverage, 0}, "coverage", ""},
		{"set_P", "", Measure{Precision, 0}, "P", "set_P"},
		{"set_recall", "", Measure{Recall, 0}, "recall", "set_recall"},
		{"hit", "whole list hit has no trec_eval name", Measure{Hit, 0}, "hit", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMeasure(tt.in)
			require.NoError(t, err)
			if got != tt.want {
				t.Errorf("ParseMeasure(%q) %s: got %v, want %v", tt.in, tt.reason, got, tt.want)
			}
			if s := got.String(); s != tt.str {
				t.Errorf("String() = %q, want %q", s, tt.str)
			}
			if s := got.TrecName(); s != tt.trec {
				t.Errorf("TrecName() = %q, want %q", s, tt.trec)
			}
			back, err := ParseMeasure(got.String())
			if err != nil || back != got {
				t.Errorf("String() %q does not parse back: %v, %v", got.String(), back, err)
			}
		})
	}
	for _, bad := range []string{"", "foo", "ndcg@0", "P@-1", "P@+5", "rprec@5", "coverage@3", "success_x", "recall_0", "hit@", "bpref"} {
		t.Run("bad_"+bad, func(t *testing.T) {
			if m, err := ParseMeasure(bad); err == nil {
				t.Errorf("ParseMeasure(%q) = %v, want an error", bad, m)
			}
		})
	}
}

func TestParseRecorded(t *testing.T) {
	for in, want := range map[string]Measure{
		"ndcg@10":    {NDCG, 10},
		"success_10": {Hit, 10}, // what ParseMeasure reads stays its reading
	} {
		got, err := ParseRecorded(in)
		if err != nil || got != want {
			t.Errorf("ParseRecorded(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	// A name this package does not define reads as a measure it cannot
	// score: Score refuses it.
	for in, want := range map[string]string{"library_resolution@1": "library_resolution", "coverage_gap": "coverage_gap"} {
		got, err := ParseRecorded(in)
		if err != nil || got.Name != want || got.String() != in || got.Score != nil {
			t.Errorf("ParseRecorded(%q) = %v, %v; want %s without a Score", in, got, err, want)
		}
		if _, err := Score([]string{"a"}, map[string]int{"a": 1}, []Measure{got}, Options{}); err == nil {
			t.Errorf("Score of recorded-only %q: want an error", in)
		}
	}
	for _, in := range []string{"", "nonsense@x", "lib@0", "lib@-1", "Lib@1", "9lib@1", "lib res@1", "@1"} {
		if m, err := ParseRecorded(in); err == nil {
			t.Errorf("ParseRecorded(%q) = %v, want an error", in, m)
		}
	}
}
