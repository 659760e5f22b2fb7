package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// writeRun writes a campaign run of 30 cases to dir by hand: bm25/lex
// finds every gold at rank 2 in about scale × 0.2 ms, dense/emb at rank 1
// (rank 6 on the cases lose lists) in about scale × 5 ms, with rules
// recorded when rules is not nil.
func writeRun(t *testing.T, dir string, rules *report.DecisionRules, scale float64, lose map[int]bool) {
	t.Helper()
	run := &campaignfmt.Campaign{Meta: campaignfmt.Meta{Dataset: "cases-x", Split: "all", Ks: []int{1, 5, 10}}}
	if rules != nil {
		cfg := report.DefaultConfig()
		cfg.Ks, cfg.Rules = run.Meta.Ks, *rules
		run.Meta.Rules, run.Meta.Stats = cfg.Record()
	}
	for _, n := range []string{"bm25/lex", "dense/emb"} {
		run.Systems = append(run.Systems, campaignfmt.SystemCost{Name: n, Status: campaignfmt.StatusOK, IndexSeconds: 1, PeakRSSMB: 100})
	}
	byModel := map[string][]resultfmt.Record{}
	for i := range 30 {
		id := fmt.Sprintf("c%02d", i)
		run.Tasks = append(run.Tasks, campaignfmt.Task{ID: id, Repo: "r", Intent: "symbol_lookup", Query: "q " + id,
			Gold: []campaignfmt.Gold{{Kind: "doc", ID: "gold-" + id, Grade: 3}}})
		for _, n := range []string{"bm25/lex", "dense/emb"} {
			sys, conf, _ := strings.Cut(n, "/")
			rank, lat := 2, scale*(0.2+0.01*float64(i%3))
			if sys == "dense" {
				rank, lat = 1, scale*(5+0.1*float64(i%4))
				if lose[i] {
					rank = 6
				}
			}
			docs := []string{"n1", "n2", "n3", "n4", "n5", "n6"}
			docs[rank-1] = "gold-" + id
			r := resultfmt.Record{Dataset: "cases-x", Split: "all", System: sys, Config: conf, Task: id, Repo: "r", Intent: "symbol_lookup", Query: "q " + id, LatencyMS: lat}
			for k, d := range docs {
				r.Hits = append(r.Hits, resultfmt.Hit{Rank: k + 1, DocID: d, Score: float64(10 - k)})
			}
			byModel[n] = append(byModel[n], r)
		}
	}
	require.NoError(t, campaignfmt.Write(filepath.Join(dir, "run.json"), run))
	for n, recs := range byModel {
		sys, conf, _ := strings.Cut(n, "/")
		require.NoError(t, resultfmt.WriteRecords(filepath.Join(dir, "results", resultfmt.RecordsFileName("cases-x", "all", sys, conf)), recs))
	}
}

// scoreRun runs score on dir with one label and returns its stdout.
func scoreRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	require.NoError(t, os.WriteFile(labels, []byte(`{"case_id":"c00","result_id":"n3","grade":0}`+"\n"), 0o644))
	var stdout, stderr bytes.Buffer
	err := run(append([]string{"score", "-run", dir, "-labels", labels, "-out", t.TempDir(), "-timestamp", "2026-01-02T00:00:00Z"}, args...), &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	return stdout.String()
}

// verdictLines are score's "  system outcome (rule)" lines.
func verdictLines(out string) string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  ") {
			lines = append(lines, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(lines, "\n")
}

// TestScoreUsesRecordedRules: score decides with the baseline and rules
// the campaign recorded in run.json (BM25 as baseline, 25 cases needed),
// says so, and changes them only when told (-baseline); a run.json of an
// older campaign, without rules, gets the defaults and says that.
func TestScoreUsesRecordedRules(t *testing.T) {
	rules := report.DefaultDecisionRules()
	rules.Baseline, rules.MinCases = "bm25/lex", 25
	dir := t.TempDir()
	writeRun(t, dir, &rules, 1, nil)
	out := scoreRun(t, dir)
	for _, want := range []string{"decision rules and statistics: the campaign's (run.json); baseline bm25/lex", "bm25/lex baseline (baseline)",
		"dense/emb quality_profile (significant_gain_over_budget)"} {
		if !strings.Contains(out, want) && !strings.Contains(verdictLines(out), want) {
			t.Errorf("score output lacks %q:\n%s", want, out)
		}
	}
	over := scoreRun(t, dir, "-baseline", "dense/emb")
	if !strings.Contains(over, "overridden by -baseline; baseline dense/emb") || !strings.Contains(verdictLines(over), "dense/emb baseline (baseline)") {
		t.Errorf("score -baseline dense/emb:\n%s", over)
	}
	// MinCases 31 (recorded) leaves every system needing data: the rule is
	// read, not the default 20.
	rules.MinCases = 31
	writeRun(t, dir, &rules, 1, nil)
	if out := scoreRun(t, dir); !strings.Contains(verdictLines(out), "dense/emb needs_more_data (too_few_cases)") {
		t.Errorf("recorded min_cases 31 not applied:\n%s", out)
	}
	old := t.TempDir()
	writeRun(t, old, nil, 1, nil)
	if out := scoreRun(t, old); !strings.Contains(out, "the defaults (run.json records none), baseline the first dense system; baseline dense/emb") {
		t.Errorf("older run.json:\n%s", out)
	}
}

// TestScoreVerdictsIgnoreLoad: the same run with every latency 3.7x (a
// loaded machine) gets the same verdicts from score.
func TestScoreVerdictsIgnoreLoad(t *testing.T) {
	rules := report.DefaultDecisionRules()
	rules.Baseline = "bm25/lex"
	a, b := t.TempDir(), t.TempDir()
	writeRun(t, a, &rules, 1, map[int]bool{3: true})
	writeRun(t, b, &rules, 3.7, map[int]bool{3: true})
	va, vb := verdictLines(scoreRun(t, a)), verdictLines(scoreRun(t, b))
	if va != vb || va == "" {
		t.Errorf("verdicts move with the load:\nunloaded:\n%s\nloaded:\n%s", va, vb)
	}
}

// TestCampaignGate: two runs of the same case file, gated per system. The
// same systems at 3.7x the latency (another machine's load) pass; a new
// run where dense/emb loses the gold on 12 of 30 cases fails (exit 1)
// naming dense/emb and not bm25/lex; a run missing a system fails; bad
// usage exits 2.
func TestCampaignGate(t *testing.T) {
	rules := report.DefaultDecisionRules()
	rules.Baseline = "bm25/lex"
	old, loaded, worse := t.TempDir(), t.TempDir(), t.TempDir()
	writeRun(t, old, &rules, 1, nil)
	writeRun(t, loaded, &rules, 3.7, nil)
	lose := map[int]bool{}
	for i := 0; i < 30; i += 5 {
		lose[i], lose[i+1] = true, true
	}
	writeRun(t, worse, &rules, 1, lose)
	gate := func(args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(append([]string{"campaign-gate"}, args...), &stdout, &stderr)
		return stdout.String(), err
	}
	out, err := gate(old, loaded)
	if err != nil || !strings.Contains(out, "no regression") || !strings.Contains(out, "30 cases in both runs") {
		t.Errorf("same systems under load: err %v\n%s", err, out)
	}
	out, err = gate(old, worse)
	if err == nil || exitCode(err) != 1 {
		t.Fatalf("dense/emb lost 12 cases: err %v (exit %d), want exit 1\n%s", err, exitCode(err), out)
	}
	var regressed []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "REGRESSED") {
			regressed = append(regressed, strings.Fields(l)[0])
		}
	}
	if strings.Join(regressed, ",") != "dense/emb" || !strings.Contains(out, "regression: recall@5 -0.4000") {
		t.Errorf("regressed %v, want dense/emb on recall@5 -0.4\n%s", regressed, out)
	}
	// A changed case is left out and named.
	run2, err := campaignfmt.Read(filepath.Join(loaded, "run.json"))
	require.NoError(t, err)
	run2.Tasks[0].Query = "a question written again"
	run2.Systems = run2.Systems[1:] // and bm25/lex is gone
	require.NoError(t, campaignfmt.Write(filepath.Join(loaded, "run.json"), run2))
	require.NoError(t, os.Remove(filepath.Join(loaded, "results", resultfmt.RecordsFileName("cases-x", "all", "bm25", "lex"))))
	out, err = gate("-baseline", "dense/emb", old, loaded)
	if err == nil || !strings.Contains(out, "29 cases in both runs with the same query and gold; 1 changed, left out: c00") ||
		!strings.Contains(out, "regression: not in the new run") {
		t.Errorf("changed case and missing system: err %v\n%s", err, out)
	}
	if _, err := gate(old); exitCode(err) != 2 {
		t.Errorf("one run: exit %d, want 2", exitCode(err))
	}
}
