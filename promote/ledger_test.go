package promote

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/ledgerfmt"
)

func entry(c ledgerfmt.Candidate, verdict string) ledgerfmt.Entry {
	return ledgerfmt.Entry{Time: "2026-12-01T07:00:00Z", Commit: "90a9356", Candidate: c, Baseline: base,
		Datasets: []string{primary + "[test]"}, Measure: "mrr", Verdict: verdict}
}

// writeLedger appends es through Append and returns the ledger re-read.
func writeLedger(t *testing.T, es ...ledgerfmt.Entry) *ledgerfmt.Ledger {
	t.Helper()
	path := filepath.Join(t.TempDir(), "LEDGER.jsonl")
	l, err := ledgerfmt.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	l2, err := ledgerfmt.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return l2
}

func TestLedgerCheck(t *testing.T) {
	weighted := ledgerfmt.Candidate{Arm: cand, Family: "bm25/code-weighted"}
	rejected := ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "hybrid", Config: "weighted-0.5", Hash: "cccccccccccccccc3333"}, Family: "hybrid/weighted-fusion"}
	forcedChild := ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "hybrid", Config: "weighted-0.6", Hash: "dddddddddddddddd4444"}, Family: "hybrid/w06", Parent: "hybrid/weighted-0.5"}
	l := writeLedger(t, entry(weighted, DecisionConfirmed), entry(rejected, DecisionRejected), entry(forcedChild, DecisionConfirmed))
	tests := []struct {
		name, reason string
		c            ledgerfmt.Candidate
		wantLine     int // 0: allowed
		wantWhy      string
	}{
		{"same candidate", "a confirmed config gets no second test evaluation",
			weighted, 1, "already evaluated on test"},
		{"renamed same config", "renaming a config does not change its hash",
			ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "bm25", Config: "renamed", Hash: cand.Hash}}, 1, "already evaluated on test"},
		{"same family as rejected", "another weight of the rejected fusion sweep",
			ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "hybrid", Config: "weighted-0.7", Hash: "eeee"}, Family: "hybrid/weighted-fusion"}, 2, `family "hybrid/weighted-fusion"`},
		{"child of rejected", "declares the rejected config as parent (by name)",
			ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "hybrid", Config: "weighted-0.8"}, Parent: "hybrid/weighted-0.5"}, 2, "descends from hybrid/weighted-0.5"},
		{"child by hash prefix", "declares the rejected config as parent by a 12-digit hash prefix",
			ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "hybrid", Config: "weighted-0.8"}, Parent: "cccccccccccc"}, 2, "descends from hybrid/weighted-0.5"},
		{"grandchild of rejected", "parent is a (forced) child of the rejected config: the chain reaches line 2",
			ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "hybrid", Config: "weighted-0.9"}, Parent: "hybrid/weighted-0.6"}, 2, "descends from hybrid/weighted-0.5"},
		{"child of confirmed", "a variant of a confirmed config is a new candidate",
			ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "bm25", Config: "code-weighted-2"}, Parent: "bm25/code-weighted"}, 0, ""},
		{"other system same family name", "families are per system",
			ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "dense", Config: "x"}, Family: "hybrid/weighted-fusion"}, 0, ""},
		{"new config", "nothing in the ledger relates to it",
			ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "bm25", Config: "porter"}}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(l, tt.c)
			if tt.wantLine == 0 {
				if err != nil {
					t.Fatalf("refused (%s): %v", tt.reason, err)
				}
				return
			}
			var r *RefusalError
			if !errors.As(err, &r) {
				t.Fatalf("Check = %v, want a refusal (%s)", err, tt.reason)
			}
			if r.Line != tt.wantLine || !strings.Contains(r.Error(), tt.wantWhy) {
				t.Errorf("refusal at line %d: %v\nwant line %d containing %q", r.Line, r, tt.wantLine, tt.wantWhy)
			}
			// The error quotes the forbidding ledger line.
			if !strings.Contains(r.Error(), `"config":"`+l.Entries[tt.wantLine-1].Candidate.Config+`"`) || !strings.Contains(r.Error(), "LEDGER.jsonl:") {
				t.Errorf("refusal does not quote ledger line %d: %v", tt.wantLine, r)
			}
		})
	}
}

func TestLedgerForcedOverrideRecorded(t *testing.T) {
	c := ledgerfmt.Candidate{Arm: cand}
	l := writeLedger(t, entry(c, DecisionRejected))
	before, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Admit(l, c, ""); err == nil {
		t.Fatal("Admit without a reason let a refused candidate through")
	}
	if _, err := Admit(l, c, "  "); err == nil {
		t.Fatal("Admit with a blank reason let a refused candidate through")
	}
	over, err := Admit(l, c, "test data was regenerated (issue 99)")
	if err != nil || over == nil || over.Line != 1 {
		t.Fatalf("Admit with a reason = %v, %v; want the line-1 refusal", over, err)
	}
	v := &StageResult{Stage: StageTest, Baseline: base, Candidate: cand, Decision: DecisionConfirmed,
		Primary: Paired{Dataset: primary, Split: "test", Measure: "mrr"}}
	e := NewEntry(v, c, "2026-12-01T08:00:00Z", "abc1234", over, "test data was regenerated (issue 99)")
	if err := l.Append(e); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, before) {
		t.Fatalf("append rewrote the earlier line:\nbefore %q\nafter  %q", before, after)
	}
	got, err := ledgerfmt.Read(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	last := got.Entries[len(got.Entries)-1]
	want := ledgerfmt.Entry{Time: "2026-12-01T08:00:00Z", Commit: "abc1234", Candidate: ledgerfmt.Candidate{Arm: cand, Family: cand.Name()},
		Baseline: base, Datasets: []string{primary + "[test]"}, Measure: "mrr", Verdict: DecisionConfirmed,
		Forced: true, ForceReason: "test data was regenerated (issue 99)", Overrode: 1}
	if diff := cmp.Diff(want, last); diff != "" {
		t.Errorf("forced entry (-want +got):\n%s", diff)
	}
}

// TestLedgerPriorP: the comparisons a new test evaluation joins are the
// earlier verdicts against the same baseline, primary dataset and measure;
// errors (no p-value), other baselines, measures and datasets are not.
func TestLedgerPriorP(t *testing.T) {
	withP := func(e ledgerfmt.Entry, p float64) ledgerfmt.Entry { e.P = p; return e }
	other := entry(ledgerfmt.Candidate{Arm: cand}, DecisionRejected)
	other.Baseline = ledgerfmt.Arm{System: "bm25", Config: "porter"}
	otherHash := entry(ledgerfmt.Candidate{Arm: cand}, DecisionRejected)
	otherHash.Baseline.Hash = "cccccccccccccccc3333"
	otherDS := entry(ledgerfmt.Candidate{Arm: cand}, DecisionRejected)
	otherDS.Datasets = []string{"cosqa[test]"}
	otherM := entry(ledgerfmt.Candidate{Arm: cand}, DecisionRejected)
	otherM.Measure = "ndcg@10"
	l := writeLedger(t,
		withP(entry(ledgerfmt.Candidate{Arm: cand}, DecisionRejected), 0.07),
		withP(entry(ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "dense", Config: "x"}}, DecisionConfirmed), 0.001),
		entry(ledgerfmt.Candidate{Arm: ledgerfmt.Arm{System: "dense", Config: "y"}}, DecisionError),
		withP(other, 0.5), withP(otherHash, 0.5), withP(otherDS, 0.5), withP(otherM, 0.5))
	if diff := cmp.Diff([]float64{0.07, 0.001}, PriorP(l, base, primary, "mrr")); diff != "" {
		t.Errorf("PriorP (-want +got):\n%s", diff)
	}
	var none *ledgerfmt.Ledger
	if got := PriorP(none, base, primary, "mrr"); got != nil {
		t.Errorf("nil ledger: %v", got)
	}
}
