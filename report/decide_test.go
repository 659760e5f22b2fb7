package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
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
func decideOn(t *testing.T, groups []group, candLatency, candIndex, candRSS float64, rules DecisionRules) Decision {
	t.Helper()
	run := &campaignfmt.Campaign{Meta: campaignfmt.Meta{Dataset: "d"}, Systems: []campaignfmt.SystemCost{
		{Name: "dense/base", Status: campaignfmt.StatusOK, IndexSeconds: 10, PeakRSSMB: 500},
		{Name: "dense/cand", Status: campaignfmt.StatusOK, IndexSeconds: candIndex, PeakRSSMB: candRSS},
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
			run.Tasks = append(run.Tasks, task(id, g.repo, "symbol_lookup", campaignfmt.Gold{Kind: "doc", ID: "gold-" + id, Grade: 3}))
			b := rec("dense/base", id, g.repo, "symbol_lookup", ranked(g.baseRank, id)...)
			c := rec("dense/cand", id, g.repo, "symbol_lookup", ranked(g.candRank, id)...)
			c.LatencyMS = candLatency
			recs = append(recs, b, c)
		}
	}
	cfg := DefaultConfig()
	cfg.Rules = rules
	cfg.Rules.Baseline = "dense/base"
	s, err := ScoreCampaign(run, recs, nil, cfg)
	require.NoError(t, err)
	require.Len(t, s.Decisions, 2)
	require.Equal(t, BaselineOutcome, s.Decisions[0].Outcome)
	return s.Decisions[1]
}

func TestDecisionOutcomes(t *testing.T) {
	g := DefaultDecisionRules()
	for _, tc := range []struct {
		name     string
		groups   []group
		lat, idx float64
		rss      float64
		rules    DecisionRules
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
		{"interactive profile", []group{{"a", 15, 2, 2}, {"b", 15, 2, 2}}, 0.5, 10, 500, g, InteractiveProfile, "non_inferior_and_faster",
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
			d := decideOn(t, tc.groups, tc.lat, tc.idx, tc.rss, tc.rules)
			if d.Outcome != tc.outcome || d.Rule != tc.rule {
				t.Errorf("decision = %s (%s: %s), want %s (%s): %s", d.Outcome, d.Rule, d.Detail, tc.outcome, tc.rule, tc.reason)
			}
		})
	}
}

func TestGatesValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*DecisionRules)
	}{
		{"unknown measure", func(g *DecisionRules) { g.Gains = []Gain{{Measure: "nope@3", Threshold: 0.1}} }},
		{"zero threshold", func(g *DecisionRules) { g.Gains = []Gain{{Measure: "mrr@10", Threshold: 0}} }},
		{"alpha", func(g *DecisionRules) { g.Alpha = 1 }},
		{"budget", func(g *DecisionRules) { g.MaxLatencyRatio = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := DefaultDecisionRules()
			tc.edit(&g)
			if g.Validate() == nil {
				t.Error("Validate() = nil, want an error")
			}
		})
	}
}

// runOf builds a campaign of one repository with n cases where each
// system ranks the gold at the rank rankOf gives (0 = not retrieved, -1 =
// the case failed with an error).
func runOf(n int, systems []string, rankOf func(system string, i int) int) (*campaignfmt.Campaign, []resultfmt.Record) {
	run := &campaignfmt.Campaign{Meta: campaignfmt.Meta{Dataset: "d"}}
	for _, name := range systems {
		run.Systems = append(run.Systems, campaignfmt.SystemCost{Name: name, Status: campaignfmt.StatusOK, IndexSeconds: 10, PeakRSSMB: 500})
	}
	var recs []resultfmt.Record
	for i := range n {
		id := fmt.Sprintf("c%02d", i)
		run.Tasks = append(run.Tasks, task(id, "r", "symbol_lookup", campaignfmt.Gold{Kind: "doc", ID: "gold-" + id, Grade: 3}))
		for _, name := range systems {
			rank := rankOf(name, i)
			if rank < 0 {
				r := rec(name, id, "r", "symbol_lookup")
				r.Error = "model failed to load"
				recs = append(recs, r)
				continue
			}
			docs := []string{"n1", "n2", "n3", "n4", "n5", "n6"}
			if rank > 0 {
				docs[rank-1] = "gold-" + id
			}
			recs = append(recs, rec(name, id, "r", "symbol_lookup", docs...))
		}
	}
	return run, recs
}

// TestHolmDecides: a gain that is significant on its own (raw p < α) but
// not once corrected for the five systems compared with the baseline is
// not a default; the same candidate compared alone is.
func TestHolmDecides(t *testing.T) {
	rankOf := func(system string, i int) int {
		switch {
		case system == "dense/lucky" && i < 5:
			return 1 // the gold moves from 3 to 1 on 5 of 40 cases
		}
		return 3
	}
	decide := func(systems ...string) Decision {
		t.Helper()
		run, recs := runOf(40, systems, rankOf)
		cfg := DefaultConfig()
		cfg.Rules.Gains = []Gain{{Measure: "mrr@10", Threshold: 0.05}}
		cfg.Rules.Baseline = "dense/base"
		s, err := ScoreCampaign(run, recs, nil, cfg)
		require.NoError(t, err)
		for _, d := range s.Decisions {
			if d.Model == "dense/lucky" {
				return d
			}
		}
		t.Fatalf("no decision on dense/lucky")
		return Decision{}
	}
	alone := decide("dense/base", "dense/lucky")
	require.Len(t, alone.Tests, 1)
	if alone.Outcome != Default || alone.Tests[0].P != alone.Tests[0].PHolm {
		t.Errorf("compared alone: %s (%s: %s), p %v, Holm p %v; want default with p = Holm p (one test)", alone.Outcome, alone.Rule, alone.Detail, alone.Tests[0].P, alone.Tests[0].PHolm)
	}
	many := decide("dense/base", "dense/lucky", "dense/same1", "dense/same2", "dense/same3", "dense/same4")
	p, holm := float64(many.Tests[0].P), float64(many.Tests[0].PHolm)
	require.Less(t, p, 0.05, "the raw test must find the gain, else the case shows nothing")
	// The four others tie the baseline (p = 1), so lucky's p is the
	// smallest of five: Holm multiplies it by 5.
	if want := min(1, 5*p); holm < want-1e-4 || holm > want+1e-4 {
		t.Errorf("Holm p = %.4f, want 5 × %.4f", holm, p)
	}
	if many.Outcome != NeedsMoreData || many.Rule != "gain_not_significant" {
		t.Errorf("among five candidates: %s (%s: %s), want needs_more_data (gain_not_significant): raw p %.4f, Holm p %.4f ≥ 0.05",
			many.Outcome, many.Rule, many.Detail, p, holm)
	}
}

// TestFailedAndPartialSystems: a system whose every case failed — even one
// whose cost record says "partial", as a campaign with a missing model
// wrote — is failed, listed last, unranked, with no score, latency or
// group rows, and rejected; a system that failed some cases keeps the count
// in every table and is never picked, though its gain on the rest would
// make it the default.
func TestFailedAndPartialSystems(t *testing.T) {
	systems := []string{"dense/dead", "dense/base", "dense/half"}
	run, recs := runOf(40, systems, func(system string, i int) int {
		switch system {
		case "dense/dead":
			return -1
		case "dense/half":
			if i%4 == 0 {
				return -1
			}
			return 1
		}
		return 6 // out of recall@5: the failed cases cost dense/half no significant loss
	})
	run.Systems[0].Status = campaignfmt.StatusPartial
	cfg := DefaultConfig()
	cfg.Rules.Baseline = "dense/base"
	s, err := ScoreCampaign(run, recs, nil, cfg)
	require.NoError(t, err)
	var order []string
	for _, ss := range s.Systems {
		order = append(order, ss.Name+" "+ss.Status)
	}
	if diff := cmp.Diff([]string{"dense/half partial", "dense/base ok", "dense/dead failed"}, order); diff != "" {
		t.Errorf("ranking (-want +got):\n%s", diff)
	}
	dead := s.Systems[2]
	if len(dead.Micro) != 0 || len(dead.MacroRepo) != 0 || dead.Failed != 40 {
		t.Errorf("failed system: micro %v, macro %v, failed %d; want no scores and 40 failed", dead.Micro, dead.MacroRepo, dead.Failed)
	}
	outcome := map[string]string{}
	for _, d := range s.Decisions {
		outcome[d.Model] = d.Outcome + " " + d.Rule
	}
	want := map[string]string{"dense/base": "baseline baseline", "dense/dead": "rejected system_failed", "dense/half": "needs_more_data partial_failure"}
	if diff := cmp.Diff(want, outcome); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	for _, rows := range [][]GroupRow{s.PerRepo, s.PerIntent} {
		for _, r := range rows {
			switch {
			case r.Model == "dense/dead":
				t.Errorf("group row of the failed system: %+v", r)
			case r.Model == "dense/half" && r.Failed != 10:
				t.Errorf("group %s of dense/half: failed %d, want 10", r.Group, r.Failed)
			}
		}
	}
	for _, r := range s.Regressions {
		if r.Model == "dense/dead" {
			t.Errorf("regression of the failed system: %+v", r)
		}
	}
	md := s.Markdown()
	for _, line := range []string{
		"| 1 | dense/half | partial | 40 | 10 |",
		"| – | dense/dead | failed | 40 | 40 | – | – | – | – | – | – | – | – | – | – | 500.0 | – |",
		"| dense/half (10 failed) |",
		"| dense/half | r | 40 (10 failed) |",
	} {
		if !strings.Contains(md, line) {
			t.Errorf("quality-summary.md lacks %q:\n%s", line, md)
		}
	}
	csv := string(s.rankingCSV())
	if !strings.Contains(csv, "\n,dense/dead,failed,rejected,40,40,,") {
		t.Errorf("per-model-ranking.csv: the failed system is ranked or scored:\n%s", csv)
	}
}

// TestWarningsAndReuseInReport: quality-summary.md lists what a system
// noticed without failing (by case, and while indexing) and shows a reused
// index with its original build time.
func TestWarningsAndReuseInReport(t *testing.T) {
	run, recs := runOf(3, []string{"ext/a", "bm25/b"}, func(string, int) int { return 1 })
	run.Systems[0].IndexSeconds, run.Systems[0].IndexReused, run.Systems[0].IndexBuildSeconds = 0.5, 1, 42
	run.Systems[0].Warnings = []string{"r: the tool skipped 2 files"}
	recs[2].Warnings = []string{"ext/a: 1 of 6 hits named a path outside the corpus and match nothing (kept at their ranks)"}
	require.Equal(t, "ext/a", recs[2].Model())
	s, err := ScoreCampaign(run, recs, nil, DefaultConfig())
	require.NoError(t, err)
	md := s.Markdown()
	for _, want := range []string{
		"| 0.5 (1 reused, built in 42.0) |",
		"## Warnings",
		"- ext/a index: r: the tool skipped 2 files",
		"- ext/a c01: ext/a: 1 of 6 hits named a path outside the corpus",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("quality-summary.md lacks %q:\n%s", want, md)
		}
	}
	if got := s.system("ext/a").Warnings; got != 2 {
		t.Errorf("ext/a warnings = %d, want 2", got)
	}
}

// TestOnlyWithoutTheRulesMeasures: a measure list (Only) that leaves out a
// measure the decision rules read is an error naming it; Summarize
// panicked in its paired tests before.
func TestOnlyWithoutTheRulesMeasures(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Only = []string{"hit@1"}
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "the decision rules read") {
		t.Fatalf("Validate with Only %v and rules on %s: %v, want an error naming the measure", cfg.Only, cfg.Rules.Primary, err)
	}
	cfg.Only = nil
	for _, m := range cfg.Measures() {
		cfg.Only = append(cfg.Only, m.String())
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate with every measure in Only: %v", err)
	}
}
