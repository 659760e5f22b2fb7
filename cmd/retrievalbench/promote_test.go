package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/ledgerfmt"
	"github.com/retrievalbench/retrievalbench/promote"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// writeStage writes constructed results of baseline bm25/unicode61 and
// candidate bm25/code-weighted for one stage: n tasks of dataset/split, the
// baseline solving the first baseHits, the candidate the first candHits.
func writeStage(t *testing.T, dir, dataset, split string, n, baseHits, candHits int) {
	t.Helper()
	for _, arm := range []struct {
		config string
		hits   int
	}{{"unicode61", baseHits}, {"code-weighted", candHits}} {
		recs := make([]resultfmt.Record, n)
		for i := range recs {
			v := 0.0
			if i < arm.hits {
				v = 1
			}
			recs[i] = resultfmt.Record{Dataset: dataset, Split: split, System: "bm25", Config: arm.config,
				Task: fmt.Sprintf("t%02d", i), Values: map[string]float64{"mrr": v, "recall@10": v}}
		}
		require.NoError(t, resultfmt.WriteRecords(filepath.Join(dir, resultfmt.RecordsFileName(dataset, split, "bm25", arm.config)), recs))
	}
}

func TestPromoteCommand(t *testing.T) {
	const ds = "repoqa-python-docstring"
	// Results of a candidate that wins everywhere and harms nothing.
	good := t.TempDir()
	writeStage(t, filepath.Join(good, "small_dev"), ds, "small_dev", 30, 5, 15)
	writeStage(t, filepath.Join(good, "dev"), ds, "dev", 50, 10, 30)
	writeStage(t, filepath.Join(good, "test"), ds, "test", 50, 10, 30)
	writeStage(t, filepath.Join(good, "test"), "repoqa-structural", "all", 40, 20, 22)
	writeStage(t, filepath.Join(good, "test"), "coderag-ds1000-ranked", "test", 40, 20, 20)
	// A candidate that wins on dev and test but breaks DS-1000.
	harm := t.TempDir()
	writeStage(t, filepath.Join(harm, "small_dev"), ds, "small_dev", 30, 5, 15)
	writeStage(t, filepath.Join(harm, "dev"), ds, "dev", 50, 10, 30)
	writeStage(t, filepath.Join(harm, "test"), ds, "test", 50, 10, 30)
	writeStage(t, filepath.Join(harm, "test"), "repoqa-structural", "all", 40, 20, 20)
	writeStage(t, filepath.Join(harm, "test"), "coderag-ds1000-ranked", "test", 40, 30, 5)
	// A candidate that is within noise on dev.
	noise := t.TempDir()
	writeStage(t, filepath.Join(noise, "small_dev"), ds, "small_dev", 30, 5, 6)
	writeStage(t, filepath.Join(noise, "dev"), ds, "dev", 50, 10, 11)

	ledger := filepath.Join(t.TempDir(), "LEDGER.jsonl")
	args := func(results string, extra ...string) []string {
		return append([]string{"-baseline", "bm25/unicode61", "-candidate", "bm25/code-weighted", "-exec=false",
			"-results", results, "-ledger", ledger}, extra...)
	}
	steps := []struct {
		name        string
		args        []string
		wantErr     string
		wantOut     []string
		ledgerLines int
	}{
		{"small_dev only", args(good, "-stage", "small_dev"), "", []string{"== stage small_dev", "decision: report", "paired diff +0.3333"}, 0},
		{"dev holds within noise", args(noise, "-stage", "dev"), "dev: bm25/code-weighted hold", []string{"decision: hold", "not significant"}, 0},
		{"test confirmed", args(good), "", []string{"decision: promote", "== stage test", "decision: confirmed",
			"rule structural-recall (recall@10 on repoqa-structural[all], max drop 0): pass",
			"rule ds1000-test (recall@10 on coderag-ds1000-ranked[test], max drop 0): pass", `"verdict":"confirmed"`}, 1},
		{"second test refused", args(good), "LEDGER.jsonl:1: test split refused: bm25/code-weighted (config hash", nil, 1},
		{"forced override recorded", args(harm, "-force-test", "DS-1000 loader fixed; re-check the gate"), "test: bm25/code-weighted rejected",
			[]string{"decision: rejected", "rule ds1000-test", "violated", `"forced":true`, `"overrode":1`}, 2},
		{"variant of rejected refused", args(harm, "-candidate", "bm25/code", "-family", "bm25/code-weighted"), "LEDGER.jsonl:2: test split refused: bm25/code is in family",
			nil, 2},
		{"child of rejected refused", args(harm, "-candidate", "bm25/code", "-parent", "bm25/code-weighted"), "LEDGER.jsonl:2: test split refused: bm25/code descends from bm25/code-weighted", nil, 2},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(append([]string{"promote"}, s.args...), &stdout, &stderr)
			switch {
			case s.wantErr == "" && err != nil:
				t.Fatalf("promote: %v\n%s%s", err, stdout.String(), stderr.String())
			case s.wantErr != "" && (err == nil || !strings.Contains(err.Error(), s.wantErr)):
				t.Fatalf("promote error %v, want one containing %q\n%s", err, s.wantErr, stdout.String())
			}
			for _, w := range s.wantOut {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			l, err := ledgerfmt.Read(ledger)
			require.NoError(t, err)
			if len(l.Entries) != s.ledgerLines {
				t.Errorf("ledger has %d lines, want %d", len(l.Entries), s.ledgerLines)
			}
		})
	}
	l, err := ledgerfmt.Read(ledger)
	require.NoError(t, err)
	require.Len(t, l.Entries, 2)
	first, forced := l.Entries[0], l.Entries[1]
	if first.Verdict != promote.DecisionConfirmed || first.Forced || first.Candidate.Hash == "" || first.Candidate.Family != "bm25/code-weighted" {
		t.Errorf("first ledger line %+v: want a confirmed, unforced bm25/code-weighted with its registry hash", first)
	}
	if !forced.Forced || forced.ForceReason != "DS-1000 loader fixed; re-check the gate" || forced.Overrode != 1 || forced.Verdict != promote.DecisionRejected {
		t.Errorf("forced ledger line %+v: want forced over line 1, rejected, with the reason", forced)
	}
	want := []string{"repoqa-python-docstring[test]", "repoqa-structural[all]", "coderag-ds1000-ranked[test]"}
	if strings.Join(first.Datasets, ",") != strings.Join(want, ",") {
		t.Errorf("ledger datasets %q, want %q", first.Datasets, want)
	}
}

// TestPromoteFailedTestRecorded: a test stage that yields no verdict (its
// results do not pair) has still spent the split, so the ledger records an
// error line, which refuses a re-run.
func TestPromoteFailedTestRecorded(t *testing.T) {
	const ds = "repoqa-python-docstring"
	broken := t.TempDir()
	writeStage(t, filepath.Join(broken, "small_dev"), ds, "small_dev", 30, 5, 15)
	writeStage(t, filepath.Join(broken, "dev"), ds, "dev", 50, 10, 30)
	require.NoError(t, resultfmt.WriteRecords(filepath.Join(broken, "test", "x.jsonl"), []resultfmt.Record{
		{Dataset: ds, Split: "test", System: "bm25", Config: "unicode61", Task: "t00", Values: map[string]float64{"mrr": 1}}}))
	ledger := filepath.Join(t.TempDir(), "LEDGER.jsonl")
	args := []string{"promote", "-baseline", "bm25/unicode61", "-candidate", "bm25/code-weighted", "-exec=false", "-results", broken, "-ledger", ledger}
	var stdout bytes.Buffer
	err := run(args, &stdout, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no results of bm25/code-weighted on repoqa-python-docstring[test]") {
		t.Fatalf("promote = %v, want the missing-results error", err)
	}
	l, err := ledgerfmt.Read(ledger)
	require.NoError(t, err)
	require.Len(t, l.Entries, 1, "stdout:\n%s", stdout.String())
	if e := l.Entries[0]; e.Verdict != promote.DecisionError || !strings.Contains(strings.Join(e.Reasons, " "), "no results of bm25/code-weighted") {
		t.Errorf("ledger line %+v: want verdict error with the failure as reason", e)
	}
	err = run(args, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "LEDGER.jsonl:1: test split refused: bm25/code-weighted") || !strings.Contains(err.Error(), "verdict error") {
		t.Errorf("re-run = %v, want a refusal by line 1", err)
	}
}

func TestPromoteVerifyLedger(t *testing.T) {
	dir := t.TempDir()
	line := `{"time":"t","commit":"c","candidate":{"system":"bm25","config":"x","family":"bm25/x"},"baseline":{"system":"bm25","config":"y"},"datasets":[],"measure":"mrr","mean_diff":0,"p":1,"verdict":"rejected","reasons":null,"forced":false}` + "\n"
	old, grown, rewritten := filepath.Join(dir, "old"), filepath.Join(dir, "grown"), filepath.Join(dir, "rewritten")
	require.NoError(t, os.WriteFile(old, []byte(line), 0o644))
	require.NoError(t, os.WriteFile(grown, []byte(line+line), 0o644))
	require.NoError(t, os.WriteFile(rewritten, []byte(strings.Replace(line, "rejected", "confirmed", 1)+line), 0o644))
	var out bytes.Buffer
	if err := run([]string{"promote", "-verify-ledger", old, "-ledger", grown}, &out, &bytes.Buffer{}); err != nil || !strings.Contains(out.String(), "(1 new lines)") {
		t.Errorf("verify of a grown ledger = %v, %q", err, out.String())
	}
	if err := run([]string{"promote", "-verify-ledger", old, "-ledger", rewritten}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "line 1 differs") {
		t.Errorf("verify of a rewritten ledger = %v, want line 1 differs", err)
	}
}

func TestPromoteUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-candidate", "bm25/code"}, "-baseline"},
		{[]string{"-baseline", "bm25", "-candidate", "bm25/code"}, "want system/config"},
		{[]string{"-baseline", "bm25/a", "-candidate", "bm25/code", "-stage", "prod"}, `-stage "prod"`},
		{[]string{"-baseline", "bm25/a", "-candidate", "bm25/code", "-exec=false"}, "needs -results"},
		{[]string{"-baseline", "bm25/a", "-candidate", "bm25/code", "-alpha", "2"}, "alpha 2"},
	} {
		err := run(append([]string{"promote"}, tt.args...), &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("promote %q = %v (exit %d), want a usage error containing %q", tt.args, err, exitCode(err), tt.want)
		}
	}
}
