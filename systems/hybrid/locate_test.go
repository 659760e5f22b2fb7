package hybrid

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/systemstest"
)

// chunkedPair is two Python files as whole files and as chunks, the chunk
// ids written out by hand (and checked against package chunk).
func chunkedPair(t *testing.T) *corpus.Corpus {
	t.Helper()
	files := &corpus.Corpus{ID: "pair", Docs: []corpus.Doc{
		{ID: "a.py", Path: "a.py", Kind: "file", Language: "python", Text: "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n"},
		{ID: "b.py", Path: "b.py", Kind: "file", Language: "python", Text: "def h():\n    return 3\n"},
	}}
	c, _, err := chunk.Corpus(files, chunk.DefaultOptions())
	require.NoError(t, err)
	var ids []string
	for _, d := range c.Docs {
		ids = append(ids, d.ID)
	}
	require.Equal(t, []string{"a.py#<module>@L1-L1", "a.py#f@L4-L5", "a.py#g@L8-L9", "b.py#h@L1-L2"}, ids, "the chunks this test is worked out for")
	c.Files = files
	return c
}

// TestFusesLocationHits: a whole-file member gets the whole files and its
// location hits are fused as what they point at by the judge's rule (a
// chunk, or the whole file); a path outside the corpus is dropped and
// logged.
func TestFusesLocationHits(t *testing.T) {
	c := chunkedPair(t)
	ids := &systemstest.Script{Hits: hits("a.py#g@L8-L9", 2.0, "b.py#h@L1-L2", 1.0)}
	locs := &systemstest.Files{Script: systemstest.Script{Hits: []systems.Hit{
		{Path: "notes.txt", StartLine: 1, Score: 9},         // not in the corpus
		{Path: "a.py", StartLine: 8, EndLine: 9, Score: 8},  // g
		{Path: "a.py", StartLine: 4, Symbol: "f", Score: 7}, // f
		{Path: "a.py", StartLine: 9, Score: 6},              // g again
		{Path: "b.py", Score: 5},                            // the whole file b.py (not its chunk h)
	}}}
	cfg := Config{Name: "t", Method: MethodRRF, K: 60, Depth: 10,
		Members: []Member{{Spec: systems.Spec{System: "ids", Config: "x"}, Weight: 1}, {Spec: systems.Spec{System: "locs", Config: "x"}, Weight: 1}}}
	x, err := NewWithMembers(cfg, []systems.System{ids, locs})
	require.NoError(t, err)
	var logs []string
	x.members.Logf = func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }
	require.NoError(t, x.Index(t.Context(), c))
	if locs.Got != c.Files {
		t.Errorf("the whole-file member indexed %v, want the corpus's whole files", locs.Got)
	}
	if ids.Indexed != 1 {
		t.Errorf("the chunk member was indexed %d times, want 1", ids.Indexed)
	}

	got, err := x.Search(t.Context(), "q", 10)
	require.NoError(t, err)
	// locs resolves to g, f, the file b.py (ranks 1-3; g's second hit and
	// notes.txt go); h is only the ids member's, f and h tie (by key).
	want := append(hits(
		"a.py#g@L8-L9", 1.0/61+1.0/61,
		"a.py#f@L4-L5", 1.0/62,
		"b.py#h@L1-L2", 1.0/62,
	), systems.Hit{Path: "b.py", Score: 1.0 / 63})
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("fused (-want +got):\n%s", diff)
	}
	require.NoError(t, x.Close())
	wantLog := "hybrid t: member locs/x: 4 of 5 location hits resolved to chunks or whole files of corpus pair; 1 dropped"
	if len(logs) != 1 || !strings.HasPrefix(logs[0], wantLog) || !strings.Contains(logs[0], `"notes.txt"`) {
		t.Errorf("log lines %q, want one starting %q naming notes.txt", logs, wantLog)
	}
}

// TestChunksWithoutFiles: a corpus without Files is whole files already,
// and a whole-file member is given it as it is; its hit, in a file whose
// doc has no lines to point into, is the whole file, as the judge reads it.
func TestChunksWithoutFiles(t *testing.T) {
	c := &corpus.Corpus{ID: "w", Docs: []corpus.Doc{{ID: "a.py", Path: "a.py", Kind: "file", Text: "x = 1\n"}}}
	locs := &systemstest.Files{Script: systemstest.Script{Hits: []systems.Hit{{Path: "a.py", StartLine: 1, Score: 1}}}}
	other := &systemstest.Script{}
	cfg := Config{Name: "t", Method: MethodWeighted, Depth: 10,
		Members: []Member{{Spec: systems.Spec{System: "a", Config: "x"}, Weight: 1}, {Spec: systems.Spec{System: "b", Config: "x"}, Weight: 1}}}
	x, err := NewWithMembers(cfg, []systems.System{other, locs})
	require.NoError(t, err)
	require.NoError(t, x.Index(t.Context(), c))
	if locs.Got != c {
		t.Errorf("whole-file member indexed %v, want the corpus itself", locs.Got)
	}
	got, err := x.Search(t.Context(), "q", 5)
	require.NoError(t, err)
	if diff := cmp.Diff([]systems.Hit{{Path: "a.py", Score: 1}}, got, approx); diff != "" {
		t.Errorf("fused (-want +got):\n%s", diff)
	}
}
