package filelinetest

import (
	"fmt"
	"testing"

	"github.com/retrievalbench/retrievalbench/fileline"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

func TestWant(t *testing.T) {
	err := fmt.Errorf("loading: %w", fileline.Errorf("/data/c/doc.trec", 5, "duplicate DOCNO %q", "1"))
	for _, tc := range []struct {
		name    string
		err     error
		want    string
		checked bool
		failed  bool
		reason  string
	}{
		{"match", err, `doc.trec:5: duplicate DOCNO "1"`, true, false, "base name and line agree"},
		{"path suffix", err, "c/doc.trec:5:", true, false, "a path suffix names the file too"},
		{"other line", err, "doc.trec:6:", true, true, "the line is checked"},
		{"other file", err, "xdoc.trec:5:", true, true, "a name that only ends alike is another file"},
		{"untyped", fmt.Errorf("doc.trec:5: hand-built"), "doc.trec:5:", true, true, "a string that looks right is not enough"},
		{"no position", err, "duplicate DOCNO", false, false, "nothing to check"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			if got := Want(r, tc.err, tc.want); got != tc.checked {
				t.Errorf("Want checked = %v, want %v (%s)", got, tc.checked, tc.reason)
			}
			if r.failed != tc.failed {
				t.Errorf("Want failed = %v, want %v (%s)", r.failed, tc.failed, tc.reason)
			}
		})
	}
}
