package trecfmt

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The seed corpora live in testdata/fuzz/<FuzzName>; go test runs them as
// ordinary test cases.

// FuzzReadQrels checks that no input makes ReadQrels panic, that every
// error names the file and line, and that accepted qrels survive a write
// and a re-read unchanged.
func FuzzReadQrels(f *testing.F) {
	f.Add([]byte("301 0 d1 1\n301 0 d2 0\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		q, err := ReadQrels(bytes.NewReader(in), "fuzz")
		if err != nil {
			checkSyntaxError(t, err)
			return
		}
		var buf bytes.Buffer
		if err := WriteQrels(&buf, q); err != nil {
			t.Fatalf("writing accepted qrels: %v", err)
		}
		back, err := ReadQrels(&buf, "again")
		if err != nil {
			t.Fatalf("re-reading written qrels: %v\n%s", err, buf.String())
		}
		if diff := cmp.Diff(q, back); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
	})
}

// FuzzReadRun checks RunReader, GroupReader and ReadRun on the same input:
// no panic, errors name file and line, GroupReader agrees with ReadRun when
// both succeed, and an accepted run survives WriteRun and a re-read.
func FuzzReadRun(f *testing.F) {
	f.Add([]byte("301 Q0 d1 1 2.5 tag\n301 Q0 d2 2 2.5 tag\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		run, tag, err := ReadRun(bytes.NewReader(in), "fuzz", true)
		if err != nil {
			checkSyntaxError(t, err)
		}
		g := NewGroupReader(bytes.NewReader(in), "fuzz")
		g.SetAllowExtraFields(true)
		groups := Run{}
		for g.Scan() {
			groups[g.QID()] = slices.Clone(g.Results())
		}
		if gerr := g.Err(); gerr != nil {
			checkSyntaxError(t, gerr)
			if err == nil && !errors.Is(gerr, ErrNotGrouped) {
				t.Errorf("GroupReader failed (%v) where ReadRun succeeded", gerr)
			}
			return
		}
		if err != nil {
			t.Fatalf("GroupReader succeeded where ReadRun failed: %v", err)
		}
		if diff := cmp.Diff(run, groups); diff != "" {
			t.Errorf("GroupReader and ReadRun disagree (-ReadRun +GroupReader):\n%s", diff)
		}
		if len(run) == 0 {
			return
		}
		var buf bytes.Buffer
		if err := WriteRun(&buf, run, tag); err != nil {
			t.Fatalf("writing an accepted run: %v", err)
		}
		back, _, err := ReadRun(&buf, "again", false)
		if err != nil {
			t.Fatalf("re-reading a written run: %v\n%s", err, buf.String())
		}
		for _, rs := range run {
			sortRanked(rs)
		}
		if diff := cmp.Diff(run, back); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
	})
}

// FuzzReadBEIR feeds the same input to the corpus, queries and qrels
// readers: none may panic, and every error names the file and line.
func FuzzReadBEIR(f *testing.F) {
	f.Add([]byte(`{"_id": "d1", "title": "t", "text": "x"}` + "\n"))
	f.Add([]byte("query-id\tcorpus-id\tscore\nq1\td1\t1\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if err := ReadBEIRCorpus(bytes.NewReader(in), "fuzz", func(d BEIRDoc) error {
			if strings.TrimSpace(d.ID) == "" {
				t.Errorf("document with empty id accepted: %+v", d)
			}
			return nil
		}); err != nil {
			checkSyntaxError(t, err)
		}
		if qs, err := ReadBEIRQueries(bytes.NewReader(in), "fuzz"); err != nil {
			checkSyntaxError(t, err)
		} else {
			for _, q := range qs {
				if strings.TrimSpace(q.ID) == "" || strings.TrimSpace(q.Text) == "" {
					t.Errorf("query with empty id or text accepted: %+v", q)
				}
			}
		}
		if _, err := ReadBEIRQrels(bytes.NewReader(in), "fuzz"); err != nil {
			checkSyntaxError(t, err)
		}
	})
}

func checkSyntaxError(t *testing.T, err error) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a *SyntaxError", err)
	}
	if se.File != "fuzz" || se.Line < 1 || !strings.HasPrefix(err.Error(), "fuzz:") {
		t.Fatalf("error %q does not name file and line", err)
	}
}
