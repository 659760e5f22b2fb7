package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// TestNotMeasured: records of go test that lack a measure for a whole
// system (a composite answer has no nDCG@10, a run without a tokenizer no
// ndcg_tok) or for some of its cases leave that measure unmeasured for it:
// no value, n/a in the tables, last on a primary it lacks, no decision on
// it — never zeros that would rank it last and lose a paired test.
func TestNotMeasured(t *testing.T) {
	var recs []resultfmt.Record
	for i := range 30 {
		add := func(system, config string, vals map[string]float64) {
			recs = append(recs, resultfmt.Record{Dataset: "d", Split: "small", System: system, Config: config,
				Task: fmt.Sprintf("t%02d", i), Repo: []string{"r1", "r2"}[i%2], Values: vals})
		}
		// dense/base ran without a tokenizer; dense/cand with one; the
		// composite answer has no ranked measure; dense/half counted
		// tokens on 12 cases only.
		add("dense", "base", map[string]float64{"ndcg@10": 0.5 + 0.01*float64(i%3)})
		add("dense", "cand", map[string]float64{"ndcg@10": 0.7 + 0.01*float64(i%5), "ndcg_tok@2000": 0.6})
		add("peer", "composite", map[string]float64{"ndcg_tok@2000": 0.9})
		half := map[string]float64{"ndcg@10": 0.4}
		if i < 12 {
			half["ndcg_tok@2000"] = 0.8
		}
		add("dense", "half", half)
	}
	summarize := func(primary string, gains ...string) *Summary {
		t.Helper()
		cfg := DefaultConfig()
		cfg.Only = []string{"ndcg@10", "ndcg_tok@2000"}
		cfg.Rules.Baseline, cfg.Rules.Primary, cfg.Rules.MinCases = "dense/base", primary, 20
		cfg.Rules.Gains = nil
		for _, g := range gains {
			cfg.Rules.Gains = append(cfg.Rules.Gains, Gain{Measure: g, Threshold: 0.05})
		}
		s, err := Summarize(Input{Records: recs}, cfg)
		require.NoError(t, err)
		_, err = json.Marshal(s)
		require.NoError(t, err, "the summary is valid JSON")
		return s
	}

	s := summarize("ndcg@10", "ndcg@10", "ndcg_tok@2000")
	var order []string
	for _, ss := range s.Systems {
		order = append(order, ss.Name)
	}
	require.Equal(t, []string{"dense/cand", "dense/base", "dense/half", "peer/composite"}, order,
		"ranked by nDCG@10; the composite, which has none, after every system that has it (not as a 0)")
	notMeasured := map[string][]string{}
	for _, ss := range s.Systems {
		notMeasured[ss.Name] = ss.NotMeasured
		for _, m := range ss.NotMeasured {
			name, _, _ := strings.Cut(m, " ")
			if _, ok := ss.Micro[name]; ok {
				t.Errorf("%s: %s is not measured but has a micro mean %v", ss.Name, name, ss.Micro[name])
			}
		}
	}
	require.Equal(t, map[string][]string{
		"dense/base":     {"ndcg_tok@2000 (on 0 of 30 cases that ran)"},
		"dense/cand":     nil,
		"dense/half":     {"ndcg_tok@2000 (on 12 of 30 cases that ran)"},
		"peer/composite": {"ndcg@10 (on 0 of 30 cases that ran)"},
	}, notMeasured)
	for _, r := range s.PerRepo {
		if _, ok := r.Values["ndcg_tok@2000"]; ok && r.Model == "dense/base" {
			t.Errorf("per-repo row %s/%s has ndcg_tok@2000 %v", r.Model, r.Group, r.Values["ndcg_tok@2000"])
		}
	}
	// The baseline lacks ndcg_tok@2000: no candidate is judged on it.
	d := decisionOf(t, s, "dense/cand")
	require.Equal(t, NeedsMoreData+" not_measured", d.Outcome+" "+d.Rule, d.Detail)
	require.Contains(t, d.Detail, "ndcg_tok@2000 not measured")
	md := s.Markdown()
	require.Contains(t, md, "| peer/composite | ok | 30 | 0 | n/a |", "the composite's nDCG@10 reads n/a, not 0.0000")
	require.Contains(t, md, "n/a: dense/half's records do not carry ndcg_tok@2000 (on 12 of 30 cases that ran)")

	// On nDCG@10 alone, measured by both, the same candidate wins; the
	// composite is not compared on it.
	s = summarize("ndcg@10", "ndcg@10")
	d = decisionOf(t, s, "dense/cand")
	require.Equal(t, Default+" significant_gain_within_budget", d.Outcome+" "+d.Rule, d.Detail)
	d = decisionOf(t, s, "peer/composite")
	require.Equal(t, "not_measured", d.Rule, d.Detail)

	// Ranked by ndcg_tok@2000: the two that carry it first, best first;
	// those without it after them, by name.
	s = summarize("ndcg_tok@2000")
	order = order[:0]
	for _, ss := range s.Systems {
		order = append(order, ss.Name)
	}
	require.Equal(t, []string{"peer/composite", "dense/cand", "dense/base", "dense/half"}, order)
}
