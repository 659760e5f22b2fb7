package ledgerfmt

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
)

var cand = Arm{System: "hybrid", Config: "rrf-bm25code-minilm", Hash: "aaaaaaaaaaaaaaaa1111"}

func entry(c Candidate, verdict string) Entry {
	return Entry{Time: "2026-12-01T07:00:00Z", Commit: "90a9356", Candidate: c, Baseline: Arm{System: "bm25", Config: "code-weighted"},
		Datasets: []string{"repoqa-python-docstring[test]"}, Measure: "mrr", Verdict: verdict}
}

// writeLedger appends es through Append and returns the ledger re-read.
func writeLedger(t *testing.T, es ...Entry) *Ledger {
	t.Helper()
	path := filepath.Join(t.TempDir(), "LEDGER.jsonl")
	l, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	l2, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return l2
}

// TestCommittedLedger reads the repository's ledger and appends its
// entries, one by one, to a new one: the bytes must be the committed
// file's, so that the writer never changes how a line reads.
func TestCommittedLedger(t *testing.T) {
	path := filepath.Join("..", "golden", "LEDGER.jsonl")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) == 0 {
		t.Fatalf("%s has no entries", path)
	}
	again := writeLedger(t, l.Entries...)
	got, err := os.ReadFile(again.Path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("the committed ledger written again (-committed +written):\n%s", diff)
	}
	if line := l.Entries[0].Line(); line+"\n" != string(want[:bytes.IndexByte(want, '\n')+1]) {
		t.Errorf("Line() = %s, want the committed first line", line)
	}
}

func TestParseArm(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Arm
		ok   bool
	}{
		{"bm25/code", Arm{System: "bm25", Config: "code"}, true},
		{"bm25", Arm{}, false},
		{"/code", Arm{}, false},
		{"bm25/", Arm{}, false},
		{"a/b/c", Arm{}, false},
	} {
		got, err := ParseArm(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseArm(%q) = %+v, %v; want %+v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestLedgerAppendOnly(t *testing.T) {
	l := writeLedger(t, entry(Candidate{Arm: cand}, "confirmed"))
	// Another evaluation appended after l was read: Append must not
	// clobber it.
	other, err := Read(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Append(entry(Candidate{Arm: Arm{System: "bm25", Config: "porter"}}, "rejected")); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(entry(Candidate{Arm: Arm{System: "bm25", Config: "code"}}, "rejected")); err == nil || !strings.Contains(err.Error(), "changed since it was read") {
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

func TestReadErrors(t *testing.T) {
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
			_, err := Read(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Read = %v, want an error containing %q", err, tt.want)
			}
			filelinetest.Want(t, err, tt.want)
		})
	}
	if err := os.WriteFile(path, []byte(good+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err := Read(path); err != nil || len(l.Entries) != 1 {
		t.Fatalf("Read of a good line = %v, %v", l, err)
	}
}
