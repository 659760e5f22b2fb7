package promote

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrievalbench/retrievalbench/ledgerfmt"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

var (
	base = ledgerfmt.Arm{System: "bm25", Config: "unicode61", Hash: "aaaaaaaaaaaaaaaa1111"}
	cand = ledgerfmt.Arm{System: "bm25", Config: "code-weighted", Hash: "bbbbbbbbbbbbbbbb2222"}
)

const primary = "repoqa-python-docstring"

// recs builds one record per value: tasks t00, t01, … of arm on
// dataset/split with values[i] as both measure m's value.
func recs(arm ledgerfmt.Arm, dataset, split, m string, values ...float64) []resultfmt.Record {
	out := make([]resultfmt.Record, len(values))
	for i, v := range values {
		out[i] = resultfmt.Record{Dataset: dataset, Split: split, System: arm.System, Config: arm.Config,
			Task: fmt.Sprintf("t%02d", i), Values: map[string]float64{m: v}}
	}
	return out
}

// ones returns n values: the first k are 1, the rest 0.
func ones(n, k int) []float64 {
	v := make([]float64, n)
	for i := range k {
		v[i] = 1
	}
	return v
}

func testConfig(rules ...Rule) Config {
	c := DefaultConfig(primary)
	c.Measure = "hit@1"
	c.Rules = rules
	return c
}

func join(rs ...[]resultfmt.Record) []resultfmt.Record {
	var out []resultfmt.Record
	for _, r := range rs {
		out = append(out, r...)
	}
	return out
}

func TestEvaluateDecisions(t *testing.T) {
	const n = 40
	structural := Rule{Name: "structural", Measure: "recall@10", Dataset: "repoqa-structural", Split: "all"}
	ds1000 := Rule{Name: "ds1000", Measure: "recall@10", Dataset: "coderag-ds1000-ranked", Split: "test", When: "repoqa-*"}
	onlyCosqa := Rule{Name: "cosqa-only", Measure: "recall@10", Dataset: "cosqa", Split: "test", When: "cosqa*"}
	ruleRecs := func(r Rule, baseHits, candHits int) []resultfmt.Record {
		return join(recs(base, r.Dataset, r.Split, r.Measure, ones(n, baseHits)...),
			recs(cand, r.Dataset, r.Split, r.Measure, ones(n, candHits)...))
	}
	tests := []struct {
		name, reason   string
		stage          string
		baseHits       int // of n primary tasks (the candidate's hits are a superset or subset: t00…)
		candHits       int
		rules          []Rule
		extra          []resultfmt.Record
		wantDecision   string
		wantReason     string // substring of the joined reasons
		wantRuleStatus []string
	}{
		{name: "small_dev reports", reason: "small_dev never decides, even on a large gain",
			stage: StageSmallDev, baseHits: 0, candHits: 30, wantDecision: DecisionReport, wantReason: "free iteration: win beyond noise"},
		{name: "dev win", reason: "30 tasks gained, none lost: p far below 0.05",
			stage: StageDev, baseHits: 0, candHits: 30, wantDecision: DecisionPromote, wantReason: "win beyond noise"},
		{name: "dev loss", reason: "the candidate loses 30 tasks",
			stage: StageDev, baseHits: 30, candHits: 0, wantDecision: DecisionHold, wantReason: "loss beyond noise"},
		{name: "dev not significant", reason: "2 wins out of 40 pairs: a gain within noise",
			stage: StageDev, baseHits: 10, candHits: 12, wantDecision: DecisionHold, wantReason: "not significant"},
		{name: "dev tie", reason: "identical runs have no gain",
			stage: StageDev, baseHits: 10, candHits: 10, wantDecision: DecisionHold, wantReason: "no gain"},
		{name: "test confirmed", reason: "a test win and both rules hold (ds1000 unchanged, structural up)",
			stage: StageTest, baseHits: 0, candHits: 30, rules: []Rule{structural, ds1000},
			extra:        join(ruleRecs(structural, 10, 15), ruleRecs(ds1000, 20, 20)),
			wantDecision: DecisionConfirmed, wantReason: "win beyond noise", wantRuleStatus: []string{RulePass, RulePass}},
		{name: "test do-no-harm violated", reason: "a test win on the primary, but DS-1000 loses 20 of 40 tasks",
			stage: StageTest, baseHits: 0, candHits: 30, rules: []Rule{structural, ds1000},
			extra:        join(ruleRecs(structural, 10, 10), ruleRecs(ds1000, 30, 10)),
			wantDecision: DecisionRejected, wantReason: "rule ds1000: regressed beyond max drop", wantRuleStatus: []string{RulePass, RuleViolated}},
		{name: "test drop within max_drop", reason: "a 2-task drop on DS-1000 is within max_drop 0.1 even if it were significant",
			stage: StageTest, baseHits: 0, candHits: 30, rules: []Rule{{Name: "ds1000", Measure: "recall@10", Dataset: "coderag-ds1000-ranked", Split: "test", MaxDrop: 0.1}},
			extra:        ruleRecs(ds1000, 30, 28),
			wantDecision: DecisionConfirmed, wantRuleStatus: []string{RulePass}},
		{name: "test rule missing fails closed", reason: "no DS-1000 results: the gate cannot be checked, so it rejects",
			stage: StageTest, baseHits: 0, candHits: 30, rules: []Rule{ds1000},
			wantDecision: DecisionRejected, wantReason: "fails closed", wantRuleStatus: []string{RuleMissing}},
		{name: "test rule not applicable", reason: "a cosqa-only rule does not apply to a RepoQA promotion",
			stage: StageTest, baseHits: 0, candHits: 30, rules: []Rule{onlyCosqa},
			wantDecision: DecisionConfirmed, wantRuleStatus: []string{RuleSkipped}},
		{name: "test not significant", reason: "the test split does not confirm a small gain",
			stage: StageTest, baseHits: 10, candHits: 12, rules: []Rule{structural}, extra: ruleRecs(structural, 10, 10),
			wantDecision: DecisionRejected, wantReason: "not significant", wantRuleStatus: []string{RulePass}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The candidate's hits are the first candHits tasks, the
			// baseline's the first baseHits: the differences are all of
			// one sign.
			rs := join(recs(base, primary, tt.stage, "hit@1", ones(n, tt.baseHits)...),
				recs(cand, primary, tt.stage, "hit@1", ones(n, tt.candHits)...), tt.extra)
			v, err := Evaluate(tt.stage, rs, base, cand, testConfig(tt.rules...))
			if err != nil {
				t.Fatal(err)
			}
			if v.Decision != tt.wantDecision {
				t.Errorf("decision %s, want %s (%s); reasons: %q", v.Decision, tt.wantDecision, tt.reason, v.Reasons)
			}
			if got := strings.Join(v.Reasons, "; "); !strings.Contains(got, tt.wantReason) {
				t.Errorf("reasons %q do not contain %q", got, tt.wantReason)
			}
			var status []string
			for _, r := range v.Rules {
				status = append(status, r.Status)
			}
			if diff := cmp.Diff(tt.wantRuleStatus, status); diff != "" {
				t.Errorf("rule statuses (-want +got):\n%s", diff)
			}
			// The numbers behind the verdict, against hand-computed values.
			wantDiff := float64(tt.candHits-tt.baseHits) / n
			if math.Abs(v.Primary.Diff.Mean-wantDiff) > 1e-12 {
				t.Errorf("mean diff %v, want %v", v.Primary.Diff.Mean, wantDiff)
			}
			if v.Primary.N != n || v.Primary.Baseline.Mean != float64(tt.baseHits)/n || v.Primary.Candidate.Mean != float64(tt.candHits)/n {
				t.Errorf("n=%d means %v/%v, want %d %v/%v", v.Primary.N, v.Primary.Baseline.Mean, v.Primary.Candidate.Mean, n, float64(tt.baseHits)/n, float64(tt.candHits)/n)
			}
		})
	}
}

// TestComparePValues checks the p-values against exact references: with 20
// differences all +1, a sign-flip round is as extreme as the observation
// only when every sign agrees (probability 2^-19), so the randomization
// p-value is 1/(rounds+1) in all but a vanishing fraction of seeds, and the
// exact McNemar p-value is 2·2^-20.
func TestComparePValues(t *testing.T) {
	cfg := testConfig()
	cfg.Test = TestPermutation
	rs := join(recs(base, primary, "dev", "hit@1", ones(20, 0)...), recs(cand, primary, "dev", "hit@1", ones(20, 20)...))
	c, err := Pair(rs, base, cand, primary, "dev", "hit@1", cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := 1.0 / float64(cfg.Stats.Resamples+1)
	if c.PPermutation != want || c.P != want {
		t.Errorf("permutation p %v (decision p %v), want %v", c.PPermutation, c.P, want)
	}
	if c.McNemar == nil || c.McNemar.B != 0 || c.McNemar.C != 20 {
		t.Fatalf("McNemar %+v, want B=0 C=20", c.McNemar)
	}
	if got, want := c.McNemar.P, 2*math.Pow(0.5, 20); math.Abs(got-want) > 1e-15 {
		t.Errorf("McNemar p %v, want %v", got, want)
	}
	if c.Wins != 20 || c.Losses != 0 || c.Ties != 0 {
		t.Errorf("wins/losses/ties %d/%d/%d, want 20/0/0", c.Wins, c.Losses, c.Ties)
	}
}

func TestCompareErrors(t *testing.T) {
	cfg := testConfig()
	b := recs(base, primary, "dev", "mrr", 1, 0, 1)
	tests := []struct {
		name string
		c    []resultfmt.Record
		want string
	}{
		{"unpaired task", recs(cand, primary, "dev", "mrr", 1, 0), "task t02 has a result for bm25/unicode61 but not for bm25/code-weighted"},
		{"extra task", recs(cand, primary, "dev", "mrr", 1, 0, 1, 1), "task t03 has a result for bm25/code-weighted but not for bm25/unicode61"},
		{"other measure", recs(cand, primary, "dev", "hit@1", 1, 0, 1), "task t00 has no mrr value (recorded: hit@1)"},
		{"duplicate", join(recs(cand, primary, "dev", "mrr", 1, 0, 1), recs(cand, primary, "dev", "mrr", 1)), "task t00 appears twice"},
		{"missing arm", nil, "no results of bm25/code-weighted on repoqa-python-docstring[dev]"},
		{"other split", recs(cand, primary, "test", "mrr", 1, 0, 1), "no results of bm25/code-weighted on repoqa-python-docstring[dev]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Pair(join(b, tt.c), base, cand, primary, "dev", "mrr", cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	bad := []struct {
		name string
		edit func(*Config)
	}{
		{"alpha", func(c *Config) { c.Stats.Alpha = 0 }},
		{"test", func(c *Config) { c.Test = "t-test" }},
		{"measure", func(c *Config) { c.Measure = "precision@ten" }},
		{"dup rule", func(c *Config) { c.Rules = append(c.Rules, c.Rules[0]) }},
		{"rule split", func(c *Config) { c.Rules[0].Split = "" }},
		{"rule drop", func(c *Config) { c.Rules[0].MaxDrop = -1 }},
	}
	if err := DefaultConfig(primary).Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig(primary)
			tt.edit(&c)
			if err := c.Validate(); err == nil {
				t.Errorf("Validate accepted a bad %s", tt.name)
			}
		})
	}
}

// TestEvaluateAmongHolm: a test-stage win whose raw p-value is below α is
// confirmed when it is the only comparison with the baseline, and rejected
// when three earlier candidates were compared with the same baseline on
// the test split: Holm multiplies the smallest of four p-values by 4.
func TestEvaluateAmongHolm(t *testing.T) {
	const n = 40
	// 6 of 40 tasks gained, none lost: p about 0.03.
	rs := join(recs(base, primary, StageTest, "hit@1", ones(n, 10)...), recs(cand, primary, StageTest, "hit@1", ones(n, 16)...))
	alone, err := Evaluate(StageTest, rs, base, cand, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	p := alone.Primary.P
	if !(p < 0.05 && 4*p >= 0.05) {
		t.Fatalf("raw p %v: the case needs p < 0.05 ≤ 4p", p)
	}
	if alone.Decision != DecisionConfirmed || alone.Comparisons != 0 {
		t.Errorf("alone: %s (%d comparisons), want confirmed with no correction: %q", alone.Decision, alone.Comparisons, alone.Reasons)
	}
	among, err := EvaluateAmong(StageTest, rs, base, cand, testConfig(), []float64{0.4, 0.7, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if among.Comparisons != 4 || math.Abs(among.PHolm-4*p) > 1e-12 {
		t.Errorf("among four: %d comparisons, Holm p %v; want 4 and 4 × %v", among.Comparisons, among.PHolm, p)
	}
	if among.Decision != DecisionRejected || !strings.Contains(strings.Join(among.Reasons, "; "), "not significant (Holm p ≥ α=0.05)") {
		t.Errorf("among four: %s, want rejected as not significant after Holm: %q", among.Decision, among.Reasons)
	}
	if e := NewEntry(among, ledgerfmt.Candidate{Arm: cand}, "t", "c", nil, ""); e.P != resultfmt.Round4(p) || e.PHolm != resultfmt.Round4(4*p) {
		t.Errorf("ledger line p %v, Holm p %v; want the raw %v beside the corrected %v", e.P, e.PHolm, p, 4*p)
	}
}

// TestPartialCandidateNeverPromoted: a candidate that wins beyond noise
// but failed a task is held, with the count in the reason.
func TestPartialCandidateNeverPromoted(t *testing.T) {
	const n = 40
	c := recs(cand, primary, StageDev, "hit@1", ones(n, 30)...)
	c[35].Error = "timeout"
	v, err := Evaluate(StageDev, join(recs(base, primary, StageDev, "hit@1", ones(n, 0)...), c), base, cand, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	if v.Decision != DecisionHold || !strings.Contains(v.Reasons[0], "the candidate failed 1 of 40 tasks") {
		t.Errorf("decision %s %q, want hold naming the failed task", v.Decision, v.Reasons)
	}
}

// TestLowerIsBetterWins: a comparison of a measure whose Def says lower is
// better counts a significant drop as the win and a rise as the loss —
// the direction is the measure's, not "higher".
func TestLowerIsBetterWins(t *testing.T) {
	cfg := DefaultConfig(primary)
	drop := Paired{Measure: "misses", Lower: true, N: 30, Diff: Estimate{-0.2, -0.3, -0.1}, P: 0.001}
	if win, why := (&StageResult{Primary: drop}).isWin(cfg); !win {
		t.Errorf("a significant drop of a lower-is-better measure: %s, want a win", why)
	}
	rise := drop
	rise.Diff = Estimate{0.2, 0.1, 0.3}
	if win, why := (&StageResult{Primary: rise}).isWin(cfg); win || !strings.HasPrefix(why, "loss beyond noise") {
		t.Errorf("a significant rise of a lower-is-better measure: %v, %s; want a loss", win, why)
	}
	higher := rise
	higher.Lower = false
	if win, _ := (&StageResult{Primary: higher}).isWin(cfg); !win {
		t.Error("the same rise of a higher-is-better measure is not a win")
	}
}
