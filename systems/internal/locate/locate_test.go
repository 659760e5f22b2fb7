package locate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
)

// widgetPy is cut by package chunk into (worked out by hand, checked below):
//
//	<module>       L1-L12  (imports, X = 3; its range spans the class)
//	Widget         L3-L10  (header and docstring; its range spans its methods)
//	Widget.render  L6-L7
//	Widget.size    L9-L10
//	helper         L14-L15
const widgetPy = `import os

class Widget:
    """A widget."""

    def render(self):
        return 'widget'

    def size(self):
        return 1

X = 3

def helper():
    pass
`

const (
	module = "pkg/b.py#<module>@L1-L12"
	class  = "pkg/b.py#Widget@L3-L10"
	render = "pkg/b.py#Widget.render@L6-L7"
	size   = "pkg/b.py#Widget.size@L9-L10"
	helper = "pkg/b.py#helper@L14-L15"
)

func chunked(t *testing.T) *corpus.Corpus {
	t.Helper()
	files := &corpus.Corpus{ID: "r", Docs: []corpus.Doc{
		{ID: "pkg/b.py", Path: "pkg/b.py", Kind: "file", Language: "python", Text: widgetPy},
		{ID: "README.md", Path: "README.md", Kind: "file", Text: "Widget docs\n"},
	}}
	c, _, err := chunk.Split(files, chunk.DefaultOptions())
	require.NoError(t, err)
	var ids []string
	for _, d := range c.Docs {
		ids = append(ids, d.ID)
	}
	require.Equal(t, []string{module, class, render, size, helper, "README.md"}, ids, "the chunks this test is worked out for")
	c.Files = files
	return c
}

func TestResolve(t *testing.T) {
	x := New(chunked(t))
	for _, tc := range []struct {
		name   string
		reason string
		hit    systems.Hit
		want   string // "" = dropped
	}{
		{"method-lines", "render owns L6-7; the class and module ranges span them but own none",
			systems.Hit{Path: "pkg/b.py", StartLine: 6, EndLine: 7}, render},
		{"most-lines", "L7-10: render owns 7, the class 8 (blank), size 9-10",
			systems.Hit{Path: "pkg/b.py", StartLine: 7, EndLine: 10}, size},
		{"tie-earlier", "L5-6: the class owns 5 (blank), render 6: a tie goes to the earlier chunk",
			systems.Hit{Path: "pkg/b.py", StartLine: 5, EndLine: 6}, class},
		{"start-only", "a start line without an end is that line",
			systems.Hit{Path: "pkg/b.py", StartLine: 9}, size},
		{"reversed-end", "an end before the start is ignored, like a start line only",
			systems.Hit{Path: "pkg/b.py", StartLine: 14, EndLine: 2}, helper},
		{"module-lines", "L11-12 (blank, X = 3) are the module chunk's",
			systems.Hit{Path: "pkg/b.py", StartLine: 11, EndLine: 12}, module},
		{"no-lines", "a path without lines is the file's first chunk",
			systems.Hit{Path: "pkg/b.py"}, module},
		{"past-the-end", "lines the file does not have own nothing: the first chunk",
			systems.Hit{Path: "pkg/b.py", StartLine: 100, EndLine: 101}, module},
		{"whole-file-doc", "a file of no language is one chunk",
			systems.Hit{Path: "README.md", StartLine: 1}, "README.md"},
		{"unknown-path", "a path no doc has cannot match gold",
			systems.Hit{Path: "notes/hello.txt", StartLine: 1}, ""},
		{"symbol-over-lines", "a symbol the file defines wins over lines that are another chunk's (the class header)",
			systems.Hit{Path: "pkg/b.py", StartLine: 3, EndLine: 4, Symbol: "render"}, render},
		{"qualified-symbol", "the tool's fully qualified name is matched as the judge matches gold",
			systems.Hit{Path: "pkg/b.py", Symbol: "pkg.b.Widget.size"}, size},
		{"symbol-of-class", "lines L6-7 are render's, but the hit says the class",
			systems.Hit{Path: "pkg/b.py", StartLine: 6, EndLine: 7, Symbol: "Widget"}, class},
		{"symbol-not-a-suffix", "idget is no dotted suffix of Widget: lines decide",
			systems.Hit{Path: "pkg/b.py", StartLine: 14, Symbol: "idget"}, helper},
		{"symbol-elsewhere", "a symbol of no chunk of the file leaves the lines to decide",
			systems.Hit{Path: "pkg/b.py", StartLine: 9, EndLine: 10, Symbol: "frobnicate"}, size},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := x.Resolve(tc.hit)
			if !ok {
				got = ""
			}
			if got != tc.want {
				t.Errorf("%s\nResolve(%+v) = %q, want %q", tc.reason, tc.hit, got, tc.want)
			}
		})
	}
}

func TestHits(t *testing.T) {
	x := New(chunked(t))
	in := []systems.Hit{
		{Path: "pkg/b.py", StartLine: 6, EndLine: 7, Score: 9, Text: "def render"},
		{DocID: helper, Score: 8},
		{Path: "notes/hello.txt", StartLine: 1, Score: 7},
		{Path: "pkg/b.py", StartLine: 6, Score: 6}, // render again
		{Path: "README.md", Score: 5},
		{Path: "elsewhere.py", Score: 4},
	}
	var tally Tally
	got := x.Hits(in, &tally)
	want := []systems.Hit{{DocID: render, Score: 9}, {DocID: helper, Score: 8}, {DocID: "README.md", Score: 5}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Hits: location hits become chunks, a repeated chunk keeps its first rank, unknown paths go (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Tally{Located: 5, Dropped: 2, First: "notes/hello.txt"}, tally); diff != "" {
		t.Errorf("Tally (-want +got):\n%s", diff)
	}

	// A ranking of doc ids (a built-in member) is not touched, repeats and all.
	ids := []systems.Hit{{DocID: "b", Score: 2}, {DocID: "a", Score: 1}, {DocID: "b", Score: 0}}
	if got := x.Hits(ids, &tally); !cmp.Equal(ids, got) || tally.Located != 5 {
		t.Errorf("Hits of doc ids = %v (tally %+v), want them as they are", got, tally)
	}
}

// TestQualifiedGoSymbol: a Go tool names a method by its import path
// (go.mod's module path and the directory), as the judge qualifies chunks.
func TestQualifiedGoSymbol(t *testing.T) {
	files := &corpus.Corpus{ID: "g", Docs: []corpus.Doc{
		{ID: "go.mod", Path: "go.mod", Kind: "file", Text: "module example.com/kv\n"},
		{ID: "store/store.go", Path: "store/store.go", Kind: "file", Language: "go",
			Text: "package store\n\ntype Store struct{}\n\nfunc (s *Store) Get() int {\n\treturn 1\n}\n\nfunc (s *Store) Put() {\n}\n"},
	}}
	c, _, err := chunk.Split(files, chunk.DefaultOptions())
	require.NoError(t, err)
	c.Files = files
	got, ok := New(c).Resolve(systems.Hit{Path: "store/store.go", Symbol: "example.com/kv/store.Store.Put"})
	if !ok || got != "store/store.go#Store.Put@L9-L10" {
		t.Errorf("Resolve(kv/store.Store.Put) = %q, %v; want the Put method's chunk (chunks: %v)", got, ok, c.Docs)
	}
}
