package locate

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/judge"
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
	c, _, err := chunk.Corpus(files, chunk.DefaultOptions())
	require.NoError(t, err)
	var ids []string
	for _, d := range c.Docs {
		ids = append(ids, d.ID)
	}
	require.Equal(t, []string{module, class, render, size, helper, "README.md"}, ids, "the chunks this test is worked out for")
	c.Files = files
	// The definitions, as harness.Prepare hands them to the judge.
	c.Defs, err = chunk.Definitions(files)
	require.NoError(t, err)
	return c
}

// TestResolve is the judge's rule (docs/judging.md, "what a hit points
// at") on the widget module: lines point at the narrowest chunk that holds
// them all, a symbol without lines at the chunk defining it, and the rest
// at the whole file ("" below, a location of the path only).
func TestResolve(t *testing.T) {
	x := New(chunked(t))
	const whole = "whole file"
	for _, tc := range []struct {
		name   string
		reason string
		hit    systems.Hit
		want   string // "" = dropped
	}{
		{"method-lines", "L6-7 are render's: the narrowest chunk that holds them (the class and module hold them too)",
			systems.Hit{Path: "pkg/b.py", StartLine: 6, EndLine: 7}, render},
		{"across-methods", "L7-10 run from render into size: the class is the narrowest chunk that holds them all",
			systems.Hit{Path: "pkg/b.py", StartLine: 7, EndLine: 10}, class},
		{"class-header", "L5-6: from the class's blank line into render: the class",
			systems.Hit{Path: "pkg/b.py", StartLine: 5, EndLine: 6}, class},
		{"start-only", "a start line without an end is that line",
			systems.Hit{Path: "pkg/b.py", StartLine: 9}, size},
		{"reversed-end", "an end before the start is the start line only",
			systems.Hit{Path: "pkg/b.py", StartLine: 14, EndLine: 2}, helper},
		{"module-lines", "L11-12 (blank, X = 3): only the module chunk holds them",
			systems.Hit{Path: "pkg/b.py", StartLine: 11, EndLine: 12}, module},
		{"across-top-level", "L10-14 run from the module chunk into helper: no chunk holds them, the whole file",
			systems.Hit{Path: "pkg/b.py", StartLine: 10, EndLine: 14}, whole},
		{"no-lines", "a path alone is the whole file",
			systems.Hit{Path: "pkg/b.py"}, whole},
		{"past-the-end", "lines the file does not have: the whole file",
			systems.Hit{Path: "pkg/b.py", StartLine: 100, EndLine: 101}, whole},
		{"whole-file-doc", "a file of no language is one chunk",
			systems.Hit{Path: "README.md", StartLine: 1}, "README.md"},
		{"unknown-path", "a path no doc has cannot match gold",
			systems.Hit{Path: "notes/hello.txt", StartLine: 1}, ""},
		{"lines-over-symbol", "with lines, the lines decide (L3-4, the class header), as the judge reads them",
			systems.Hit{Path: "pkg/b.py", StartLine: 3, EndLine: 4, Symbol: "render"}, class},
		{"qualified-symbol", "a symbol without lines: the chunk whose fully qualified name it names",
			systems.Hit{Path: "pkg/b.py", Symbol: "pkg.b.Widget.size"}, size},
		{"bare-symbol", "a dotted suffix of the qualified name",
			systems.Hit{Path: "pkg/b.py", Symbol: "render"}, render},
		{"method-and-blank-line", "L9-11: size and the blank line after it, which a definition holds",
			systems.Hit{Path: "pkg/b.py", StartLine: 9, EndLine: 11}, size},
		{"symbol-not-a-suffix", "idget is no dotted suffix of Widget: the file defines no such name, the whole file",
			systems.Hit{Path: "pkg/b.py", Symbol: "idget"}, whole},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, ok := x.Resolve(tc.hit)
			got := h.DocID
			switch {
			case !ok:
				got = ""
			case got == "" && h.StartLine > 0:
				got = fmt.Sprintf("lines %d-%d", h.StartLine, h.EndLine)
			case got == "":
				got = whole
			}
			if got != tc.want {
				t.Errorf("%s\nResolve(%+v) = %q, want %q", tc.reason, tc.hit, got, tc.want)
			}
		})
	}
}

// TestAgreesWithJudge feeds identical hits to the wrapper's rule and the
// judge's: every line range of the widget module (1-1 … 17-17, and past
// its end), every symbol the chunker cuts (bare and qualified) and some it
// does not, and a path alone. Judged by package judge against gold of
// every level — the file, the class, a method, a function, written bare
// and qualified — the chunk (or whole file) locate makes of a hit earns
// exactly what the hit itself earns.
func TestAgreesWithJudge(t *testing.T) {
	c := chunked(t)
	x := New(c)
	jc := judge.NewCorpus(c)
	q := codetext.NewQualifier(c.Files)
	jc.Qualify, jc.Resolve = q.Name, q.Resolve
	gold := []datasets.Relevant{
		{Kind: "file", ID: "pkg/b.py", Grade: 1},
		{Kind: "symbol", ID: "pkg.b.Widget", Grade: 2},
		{Kind: "symbol", ID: "Widget.render", Grade: 3},
		{Kind: "symbol", ID: "helper", Grade: 3, Path: "pkg/b.py"},
	}
	var hits []systems.Hit
	for s := 1; s <= 18; s++ {
		for e := s; e <= 18; e++ {
			hits = append(hits, systems.Hit{Path: "pkg/b.py", StartLine: s, EndLine: e})
		}
	}
	for _, sym := range []string{"Widget", "Widget.render", "Widget.size", "helper", "pkg.b.Widget.size", "b.helper", "<module>", "idget", "nosuch"} {
		hits = append(hits, systems.Hit{Path: "pkg/b.py", Symbol: sym})
	}
	hits = append(hits, systems.Hit{Path: "pkg/b.py"}, systems.Hit{Path: "README.md"})
	for _, h := range hits {
		raw := jc.Target(judge.Item{Located: true, Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Symbol: h.Symbol, Language: codetext.LanguageOf(h.Path)})
		out := x.Hits([]systems.Hit{h}, nil)
		if len(out) != 1 {
			t.Fatalf("Hits(%+v) = %v, want one hit", h, out)
		}
		var wrapped judge.Item
		if out[0].DocID != "" {
			d, ok := jc.Doc(out[0].DocID)
			require.True(t, ok)
			wrapped = judge.DocItem(d)
		} else {
			wrapped = jc.Target(judge.Item{Located: true, Path: out[0].Path, StartLine: out[0].StartLine, EndLine: out[0].EndLine})
		}
		for gi, g := range gold {
			a := judge.Rank(gold[gi:gi+1], []judge.Item{raw}, jc, nil)
			b := judge.Rank(gold[gi:gi+1], []judge.Item{wrapped}, jc, nil)
			if a.Grades[0] != b.Grades[0] {
				t.Errorf("hit %+v, gold %s: the judge credits the hit %d, and %d to what locate made of it (%+v)", h, g.ID, a.Grades[0], b.Grades[0], out[0])
			}
		}
		if raw.StartLine > 0 && (out[0].DocID == "" || wrapped.StartLine != raw.StartLine || wrapped.EndLine != raw.EndLine) {
			t.Errorf("hit %+v: the judge points it at lines %d-%d, locate at %+v", h, raw.StartLine, raw.EndLine, out[0])
		}
		if raw.StartLine == 0 && out[0].DocID != "" && h.Path == "pkg/b.py" {
			t.Errorf("hit %+v: the judge points it at the whole file, locate at chunk %s", h, out[0].DocID)
		}
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
		{Path: "pkg/b.py", Score: 3},                             // the whole file
		{Path: "pkg/b.py", StartLine: 1, EndLine: 999, Score: 2}, // the whole file again
	}
	var tally Tally
	got := x.Hits(in, &tally)
	// README.md by its path alone is its whole file too, though one chunk
	// holds it: the judge reads a path alone so.
	want := []systems.Hit{{DocID: render, Score: 9}, {DocID: helper, Score: 8}, {Path: "README.md", Score: 5}, {Path: "pkg/b.py", Score: 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Hits: location hits become chunks or whole files, a repeat keeps its first rank, unknown paths go (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Tally{Located: 7, Dropped: 2, First: "notes/hello.txt"}, tally); diff != "" {
		t.Errorf("Tally (-want +got):\n%s", diff)
	}

	// A ranking of doc ids (a built-in member) is not touched, repeats and all.
	ids := []systems.Hit{{DocID: "b", Score: 2}, {DocID: "a", Score: 1}, {DocID: "b", Score: 0}}
	if got := x.Hits(ids, &tally); !cmp.Equal(ids, got) || tally.Located != 7 {
		t.Errorf("Hits of doc ids = %v (tally %+v), want them as they are", got, tally)
	}
	for _, h := range []systems.Hit{{DocID: render}, {Path: "pkg/b.py"}} {
		if back := FromKey(Key(h), 0); !cmp.Equal(h, back) {
			t.Errorf("FromKey(Key(%+v)) = %+v", h, back)
		}
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
	c, _, err := chunk.Corpus(files, chunk.DefaultOptions())
	require.NoError(t, err)
	c.Files = files
	h, ok := New(c).Resolve(systems.Hit{Path: "store/store.go", Symbol: "example.com/kv/store.Store.Put"})
	if got := h.DocID; !ok || got != "store/store.go#Store.Put@L9-L10" {
		t.Errorf("Resolve(kv/store.Store.Put) = %q, %v; want the Put method's chunk (chunks: %v)", got, ok, c.Docs)
	}
}

// TestNestedDefinition: a hit on a definition no chunk is cut for (a
// function in a method) stays a location of that definition's lines, so
// that a fusion credits it as the judge credits the member's own hit; the
// key keeps its lines.
func TestNestedDefinition(t *testing.T) {
	files := &corpus.Corpus{ID: "n", Docs: []corpus.Doc{{ID: "n.py", Path: "n.py", Kind: "file", Language: "python",
		Text: "class A:\n    def m(self):\n        def helper():\n            return 1\n\n        return helper()\n"}}}
	c, _, err := chunk.Corpus(files, chunk.DefaultOptions())
	require.NoError(t, err)
	c.Files = files
	c.Defs, err = chunk.Definitions(files)
	require.NoError(t, err)
	x := New(c)
	want := systems.Hit{Path: "n.py", StartLine: 3, EndLine: 4, Score: 1}
	for _, h := range []systems.Hit{
		{Path: "n.py", StartLine: 3, EndLine: 5, Score: 1},
		{Path: "n.py", StartLine: 4, Score: 1},
		{Path: "n.py", Symbol: "A.m.helper", Score: 1},
		{Path: "n.py", Symbol: "n.A.m.helper", Score: 1},
	} {
		got := x.Hits([]systems.Hit{h}, nil)
		if diff := cmp.Diff([]systems.Hit{want}, got); diff != "" {
			t.Errorf("Hits(%+v) (-want +got):\n%s", h, diff)
		}
	}
	if back := FromKey(Key(want), 1); !cmp.Equal(want, back) {
		t.Errorf("FromKey(Key(%+v)) = %+v", want, back)
	}
	if got := x.Hits([]systems.Hit{{Path: "n.py", StartLine: 2, EndLine: 6}}, nil); len(got) != 1 || got[0].DocID != "n.py#A.m@L2-L6" {
		t.Errorf("the method's lines: %+v, want its chunk", got)
	}
	gold := []datasets.Relevant{{Kind: "symbol", ID: "A.m.helper", Grade: 3}, {Kind: "symbol", ID: "A.m", Grade: 2}}
	jc := judge.NewCorpus(c)
	it := jc.Target(judge.Item{Located: true, Path: want.Path, StartLine: want.StartLine, EndLine: want.EndLine})
	if r := judge.Rank(gold, []judge.Item{it}, jc, nil); r.Grades[0] != 3 {
		t.Errorf("the judge gives what locate made of the helper hit %d, want 3", r.Grades[0])
	}
}
