package promote

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
)

func entry(c Candidate, verdict string) Entry {
	return Entry{Time: "2026-12-01T07:00:00Z", Commit: "90a9356", Candidate: c, Baseline: base,
		Datasets: []string{primary + "[test]"}, Measure: "mrr", Verdict: verdict}
}

// writeLedger appends es through Append and returns the ledger re-read.
func writeLedger(t *testing.T, es ...Entry) *Ledger {
	t.Helper()
	path := filepath.Join(t.TempDir(), "LEDGER.jsonl")
	l, err := ReadLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	l2, err := ReadLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	return l2
}

func TestLedgerCheck(t *testing.T) {
	weighted := Candidate{Arm: cand, Family: "bm25/code-weighted"}
	rejected := Candidate{Arm: Arm{System: "hybrid", Config: "weighted-0.5", Hash: "cccccccccccccccc3333"}, Family: "hybrid/weighted-fusion"}
	forcedChild := Candidate{Arm: Arm{System: "hybrid", Config: "weighted-0.6", Hash: "dddddddddddddddd4444"}, Family: "hybrid/w06", Parent: "hybrid/weighted-0.5"}
	l := writeLedger(t, entry(weighted, DecisionConfirmed), entry(rejected, DecisionRejected), entry(forcedChild, DecisionConfirmed))
	tests := []struct {
		name, reason string
		c            Candidate
		wantLine     int // 0: allowed
		wantWhy      string
	}{
		{"same candidate", "a confirmed config gets no second test evaluation",
			weighted, 1, "already evaluated on test"},
		{"renamed same config", "renaming a config does not change its hash",
			Candidate{Arm: Arm{System: "bm25", Config: "renamed", Hash: cand.Hash}}, 1, "already evaluated on test"},
		{"same family as rejected", "another weight of the rejected fusion sweep",
			Candidate{Arm: Arm{System: "hybrid", Config: "weighted-0.7", Hash: "eeee"}, Family: "hybrid/weighted-fusion"}, 2, `family "hybrid/weighted-fusion"`},
		{"child of rejected", "declares the rejected config as parent (by name)",
			Candidate{Arm: Arm{System: "hybrid", Config: "weighted-0.8"}, Parent: "hybrid/weighted-0.5"}, 2, "descends from hybrid/weighted-0.5"},
		{"child by hash prefix", "declares the rejected config as parent by a 12-digit hash prefix",
			Candidate{Arm: Arm{System: "hybrid", Config: "weighted-0.8"}, Parent: "cccccccccccc"}, 2, "descends from hybrid/weighted-0.5"},
		{"grandchild of rejected", "parent is a (forced) child of the rejected config: the chain reaches line 2",
			Candidate{Arm: Arm{System: "hybrid", Config: "weighted-0.9"}, Parent: "hybrid/weighted-0.6"}, 2, "descends from hybrid/weighted-0.5"},
		{"child of confirmed", "a variant of a confirmed config is a new candidate",
			Candidate{Arm: Arm{System: "bm25", Config: "code-weighted-2"}, Parent: "bm25/code-weighted"}, 0, ""},
		{"other system same family name", "families are per system",
			Candidate{Arm: Arm{System: "dense", Config: "x"}, Family: "hybrid/weighted-fusion"}, 0, ""},
		{"new config", "nothing in the ledger relates to it",
			Candidate{Arm: Arm{System: "bm25", Config: "porter"}}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := l.Check(tt.c)
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
	c := Candidate{Arm: cand}
	l := writeLedger(t, entry(c, DecisionRejected))
	before, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Admit(c, ""); err == nil {
		t.Fatal("Admit without a reason let a refused candidate through")
	}
	if _, err := l.Admit(c, "  "); err == nil {
		t.Fatal("Admit with a blank reason let a refused candidate through")
	}
	over, err := l.Admit(c, "test data was regenerated (issue 99)")
	if err != nil || over == nil || over.Line != 1 {
		t.Fatalf("Admit with a reason = %v, %v; want the line-1 refusal", over, err)
	}
	v := &StageResult{Stage: StageTest, Baseline: base, Candidate: cand, Decision: DecisionConfirmed,
		Primary: Comparison{Dataset: primary, Split: "test", Measure: "mrr"}}
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
	got, err := ReadLedger(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	last := got.Entries[len(got.Entries)-1]
	want := Entry{Time: "2026-12-01T08:00:00Z", Commit: "abc1234", Candidate: Candidate{Arm: cand, Family: cand.Name()},
		Baseline: base, Datasets: []string{primary + "[test]"}, Measure: "mrr", Verdict: DecisionConfirmed,
		Forced: true, ForceReason: "test data was regenerated (issue 99)", Overrode: 1}
	if diff := cmp.Diff(want, last); diff != "" {
		t.Errorf("forced entry (-want +got):\n%s", diff)
	}
}

func TestLedgerAppendOnly(t *testing.T) {
	l := writeLedger(t, entry(Candidate{Arm: cand}, DecisionConfirmed))
	// Another evaluation appended after l was read: Append must not
	// clobber it.
	other, err := ReadLedger(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Append(entry(Candidate{Arm: Arm{System: "bm25", Config: "porter"}}, DecisionRejected)); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(entry(Candidate{Arm: Arm{System: "bm25", Config: "code"}}, DecisionRejected)); err == nil || !strings.Contains(err.Error(), "changed since it was read") {
		t.Fatalf("Append over a concurrent append = %v, want a 'changed since it was read' error", err)
	}
	old, _ := os.ReadFile(l.Path)
	rewritten := bytes.Replace(old, []byte(`"verdict":"rejected"`), []byte(`"verdict":"confirmed"`), 1)
	appended := append(append([]byte{}, old...), []byte(`{"time":"x","candidate":{"system":"a","config":"b","family":""},"verdict":"rejected"}`+"\n")...)
	tests := []struct {
		name string
		next []byte
		want string // "" = accepted
	}{
		{"append", appended, ""},
		{"rewrite line 2", rewritten, "line 2 differs"},
		{"truncate", old[:len(old)-5], "line 2 differs"},
		{"garbage appended", append(append([]byte{}, old...), "not json\n"...), "appended lines:1:"},
		{"unterminated", append(append([]byte{}, old...), `{"x":1}`...), "not terminated by a newline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyAppendOnly(old, tt.next)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("rejected a pure append: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("VerifyAppendOnly = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestReadLedgerErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "LEDGER.jsonl")
	good := `{"time":"t","commit":"c","candidate":{"system":"bm25","config":"x","family":"bm25/x"},"baseline":{"system":"bm25","config":"y"},"datasets":[],"measure":"mrr","mean_diff":0,"p":1,"verdict":"rejected","reasons":null,"forced":false}`
	for _, tt := range []struct{ name, text, want string }{
		{"bad json", good + "\n{\n", "LEDGER.jsonl:2:"},
		{"unknown field", good + "\n" + `{"verdict":"rejected","candidate":{"system":"s"},"extra":1}` + "\n", `LEDGER.jsonl:2: json: unknown field "extra"`},
		{"no verdict", `{"candidate":{"system":"s"}}` + "\n", "LEDGER.jsonl:1: entry needs a candidate and a verdict"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadLedger(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadLedger = %v, want an error containing %q", err, tt.want)
			}
			filelinetest.Want(t, err, tt.want)
		})
	}
	if err := os.WriteFile(path, []byte(good+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err := ReadLedger(path); err != nil || len(l.Entries) != 1 {
		t.Fatalf("ReadLedger of a good line = %v, %v", l, err)
	}
}

// TestLedgerPriorP: the comparisons a new test evaluation joins are the
// earlier verdicts against the same baseline, primary dataset and measure;
// errors (no p-value), other baselines, measures and datasets are not.
func TestLedgerPriorP(t *testing.T) {
	withP := func(e Entry, p float64) Entry { e.P = p; return e }
	other := entry(Candidate{Arm: cand}, DecisionRejected)
	other.Baseline = Arm{System: "bm25", Config: "porter"}
	otherHash := entry(Candidate{Arm: cand}, DecisionRejected)
	otherHash.Baseline.Hash = "cccccccccccccccc3333"
	otherDS := entry(Candidate{Arm: cand}, DecisionRejected)
	otherDS.Datasets = []string{"cosqa[test]"}
	otherM := entry(Candidate{Arm: cand}, DecisionRejected)
	otherM.Measure = "ndcg@10"
	l := writeLedger(t,
		withP(entry(Candidate{Arm: cand}, DecisionRejected), 0.07),
		withP(entry(Candidate{Arm: Arm{System: "dense", Config: "x"}}, DecisionConfirmed), 0.001),
		entry(Candidate{Arm: Arm{System: "dense", Config: "y"}}, DecisionError),
		withP(other, 0.5), withP(otherHash, 0.5), withP(otherDS, 0.5), withP(otherM, 0.5))
	if diff := cmp.Diff([]float64{0.07, 0.001}, l.PriorP(base, primary, "mrr")); diff != "" {
		t.Errorf("PriorP (-want +got):\n%s", diff)
	}
	var none *Ledger
	if got := none.PriorP(base, primary, "mrr"); got != nil {
		t.Errorf("nil ledger: %v", got)
	}
}
