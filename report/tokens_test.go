package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// TestRescoreTokenMeasures: rescoring a record recomputes the token
// measures from the tokens its hits carry, so a campaign's decision rules
// can gain on quality at a token budget; a record counted by no tokenizer
// leaves them undefined rather than free.
func TestRescoreTokenMeasures(t *testing.T) {
	hits := []resultfmt.Hit{
		{Rank: 2, DocID: "g", Unit: "g", Grade: 1, Tokens: 800},
		{Rank: 1, DocID: "n", Unit: "n", Tokens: 600},
	}
	recs := []resultfmt.Record{
		{System: "s", Config: "c", Task: "t", Hits: hits},
		{System: "s", Config: "u", Task: "t", Hits: []resultfmt.Hit{{Rank: 1, DocID: "g", Unit: "g", Grade: 1}}},
	}
	q := metrics.Qrels{"t": {"g": 1}}
	ms := []metrics.Measure{metrics.CoveredTok.At(1000), metrics.TokensAt.At(10)}
	require.NoError(t, Rescore(recs, q, ms))
	require.InDelta(t, 0.5, recs[0].Values["covered_tok@1000"], 1e-12, "n (600) whole, then g cut: 400 of its 800 tokens")
	require.Equal(t, 1400.0, recs[0].Values["tokens@10"])
	require.True(t, math.IsNaN(recs[1].Values["covered_tok@1000"]), "no tokens counted: undefined, got %v", recs[1].Values["covered_tok@1000"])
}

// setTokens sets every hit's token count: tok(system, case index).
func setTokens(recs []resultfmt.Record, tok func(system string, i int) int) {
	for i := range recs {
		var k int
		fmt.Sscanf(recs[i].Task, "c%d", &k)
		for h := range recs[i].Hits {
			recs[i].Hits[h].Tokens = tok(recs[i].Model(), k)
		}
	}
}

// TestTokenBudget: a token budget decides as the latency budget does. A
// candidate with a significant gain whose context (tokens@10) is steadily
// 3x the baseline's is over a 2x token budget (quality_profile); one whose
// per-case ratio swings across the budget (interval across it) is not; the
// same records without the budget are a default whatever their tokens; and
// a budget over records no tokenizer counted is not checked, and says so.
func TestTokenBudget(t *testing.T) {
	rankOf := func(system string, i int) int {
		if system == "dense/cand" {
			return 1
		}
		return 3
	}
	run, recs := runOf(30, []string{"dense/base", "dense/cand"}, rankOf)
	decide := func(ratio float64) (string, Decision) {
		t.Helper()
		cfg := DefaultConfig()
		cfg.Rules.Baseline, cfg.Rules.MaxTokensRatio = "dense/base", ratio
		s, err := ScoreCampaign(run, slices.Clone(recs), nil, cfg)
		require.NoError(t, err)
		d := decisionOf(t, s, "dense/cand")
		return d.Outcome + " " + d.Rule, d
	}
	setTokens(recs, func(system string, i int) int {
		if system == "dense/cand" {
			return 300 + 10*(i%3) // six hits: 1800..1920 tokens@10
		}
		return 100
	})
	got, d := decide(2)
	require.NotNil(t, d.Tokens, d.Detail)
	require.InDelta(t, 3.1, float64(d.Tokens.Ratio), 0.1, "tokens@10 %s", d.Tokens)
	require.InDelta(t, 600, float64(d.Tokens.BaselineMean), 1e-9)
	if got != "quality_profile significant_gain_over_budget" || !strings.Contains(d.Detail, "> 2.00x") {
		t.Errorf("steadily 3x the tokens under a 2x budget: %s (%s), want quality_profile over the token budget", got, d.Detail)
	}
	if got, d = decide(0); got != "default significant_gain_within_budget" || d.Tokens != nil {
		t.Errorf("no token budget: %s (%s, tokens %v), want default and no token test", got, d.Detail, d.Tokens)
	}
	if got, d = decide(4); got != "default significant_gain_within_budget" || !strings.Contains(d.Detail, "tokens@10 3.") {
		t.Errorf("3x under a 4x budget: %s (%s), want default with the token ratio in the detail", got, d.Detail)
	}

	setTokens(recs, func(system string, i int) int {
		if system == "dense/cand" {
			return []int{50, 300, 60, 250, 140}[i%5]
		}
		return 100
	})
	got, d = decide(1.25)
	require.NotNil(t, d.Tokens)
	if float64(d.Tokens.Ratio) <= 1.25 || float64(d.Tokens.Low) >= 1.25 {
		t.Fatalf("tokens %s: the case needs a ratio above 1.25x with an interval across it", d.Tokens)
	}
	if got != "default significant_gain_within_budget" {
		t.Errorf("noisy token ratio: %s (%s), want default: the budget decides only on a significant difference", got, d.Detail)
	}

	setTokens(recs, func(string, int) int { return 0 })
	got, d = decide(2)
	if got != "default significant_gain_within_budget" || d.Tokens != nil || !strings.Contains(d.Detail, "tokens@10 not compared") {
		t.Errorf("no token counts: %s (%s), want default with the budget unchecked and said so", got, d.Detail)
	}
}

// TestTokenBudgetRecorded: the token budget is a decision rule run.json
// records and a later score reads back (Recorded), and a negative one is
// refused.
func TestTokenBudgetRecorded(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Rules.MaxTokensRatio = 1.5
	rules, _ := cfg.Record()
	back, ok := Recorded(campaignfmt.Meta{Rules: rules})
	require.True(t, ok)
	require.Equal(t, 1.5, back.Rules.MaxTokensRatio)
	require.NotContains(t, measureNames(back.Measures()), "tokens@10", "compared from the hits' counts, not a reported measure")
	cfg.Rules.MaxTokensRatio = -1
	require.ErrorContains(t, cfg.Validate(), "token budget")
}

func measureNames(ms []metrics.Measure) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.String())
	}
	return out
}
