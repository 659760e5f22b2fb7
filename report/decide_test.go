package report

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// group is n cases of one repository where the baseline ranks the gold at
// baseRank and the candidate at candRank (0 = not retrieved).
type group struct {
	repo               string
	n                  int
	baseRank, candRank int
}

// decideOn builds a run of two systems over groups and returns the
// candidate's decision.
func decideOn(t *testing.T, groups []group, candLatency, candIndex, candRSS float64, gates Rules) Decision {
	t.Helper()
	run := &Campaign{Meta: Meta{Dataset: "d"}, Systems: []SystemCost{
		{Name: "dense/base", Status: StatusOK, IndexSeconds: 10, PeakRSSMB: 500},
		{Name: "dense/cand", Status: StatusOK, IndexSeconds: candIndex, PeakRSSMB: candRSS},
	}}
	ranked := func(goldRank int, id string) []string {
		docs := []string{"n1", "n2", "n3", "n4", "n5", "n6"}
		if goldRank > 0 {
			docs[goldRank-1] = "gold-" + id
		}
		return docs
	}
	var recs []resultfmt.Record
	k := 0
	for _, g := range groups {
		for i := 0; i < g.n; i++ {
			k++
			id := fmt.Sprintf("%s-%02d", g.repo, i)
			run.Tasks = append(run.Tasks, task(id, g.repo, "symbol_lookup", Gold{Kind: "doc", ID: "gold-" + id, Grade: 3}))
			b := rec("dense/base", id, g.repo, "symbol_lookup", ranked(g.baseRank, id)...)
			c := rec("dense/cand", id, g.repo, "symbol_lookup", ranked(g.candRank, id)...)
			c.LatencyMS = candLatency
			recs = append(recs, b, c)
		}
	}
	cfg := DefaultConfig()
	cfg.Rules = gates
	cfg.Rules.Baseline = "dense/base"
	s, err := ScoreCampaign(run, recs, nil, cfg)
	require.NoError(t, err)
	require.Len(t, s.Decisions, 2)
	require.Equal(t, BaselineOutcome, s.Decisions[0].Outcome)
	return s.Decisions[1]
}

func TestDecisionOutcomes(t *testing.T) {
	g := DefaultRules()
	for _, tc := range []struct {
		name     string
		groups   []group
		lat, idx float64
		rss      float64
		gates    Rules
		outcome  string
		rule     string
		reason   string
	}{
		{"default", []group{{"a", 15, 3, 1}, {"b", 15, 3, 1}}, 1.1, 15, 800, g, Default, "significant_gain_within_budget",
			"MRR@10 +0.67 on every case, latency 1.1x, index 1.5x, RSS under 4 GiB"},
		{"quality profile (latency)", []group{{"a", 15, 3, 1}, {"b", 15, 3, 1}}, 2, 15, 800, g, QualityProfile, "significant_gain_over_budget",
			"the same gain at 2x the query latency"},
		{"quality profile (memory)", []group{{"a", 15, 3, 1}, {"b", 15, 3, 1}}, 1, 10, 5000, g, QualityProfile, "significant_gain_over_budget",
			"the same gain over the 4 GiB memory budget"},
		{"interactive profile", []group{{"a", 15, 2, 2}, {"b", 15, 2, 2}}, 0.5, 10, 500, g, InteractiveProfile, "faster_without_significant_loss",
			"identical rankings at half the latency"},
		{"rejected (loss)", []group{{"a", 15, 1, 0}, {"b", 15, 1, 0}}, 0.5, 1, 100, g, Rejected, "significant_loss",
			"faster and cheaper, but it never finds the gold"},
		{"rejected (no gain)", []group{{"a", 15, 2, 2}, {"b", 15, 2, 2}}, 1, 10, 500, g, Rejected, "no_gain",
			"identical rankings at the same cost"},
		{"needs more data (few cases)", []group{{"a", 4, 3, 1}, {"b", 4, 3, 1}}, 1, 10, 500, g, NeedsMoreData, "too_few_cases",
			"8 paired cases < 20"},
		{"needs more data (not significant)", []group{{"a", 28, 2, 2}, {"b", 2, 0, 1}}, 1, 10, 500, g, NeedsMoreData, "gain_not_significant",
			"recall@5 gains 2/30 = 0.067 on two cases only"},
		{"needs more data (inconsistent)", []group{{"a", 25, 3, 1}, {"b", 6, 1, 2}}, 1, 10, 500, g, NeedsMoreData, "inconsistent_gain",
			"a significant overall gain, but repository b (6 cases) loses MRR@10 0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decideOn(t, tc.groups, tc.lat, tc.idx, tc.rss, tc.gates)
			if d.Outcome != tc.outcome || d.Rule != tc.rule {
				t.Errorf("decision = %s (%s: %s), want %s (%s): %s", d.Outcome, d.Rule, d.Detail, tc.outcome, tc.rule, tc.reason)
			}
		})
	}
}

func TestGatesValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Rules)
	}{
		{"unknown measure", func(g *Rules) { g.Gains = []Gain{{"nope@3", 0.1}} }},
		{"zero threshold", func(g *Rules) { g.Gains = []Gain{{"mrr@10", 0}} }},
		{"alpha", func(g *Rules) { g.Alpha = 1 }},
		{"budget", func(g *Rules) { g.MaxLatencyRatio = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := DefaultRules()
			tc.edit(&g)
			if g.Validate() == nil {
				t.Error("Validate() = nil, want an error")
			}
		})
	}
}
