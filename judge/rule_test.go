package judge

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
)

// ruleSource is a Python module of a src/ layout package, chunked by the
// real chunker: <module> 1-3, class A 5-11 (its range spans its methods),
// A.f 7-8, A.g 10-11, h 14-15.
const ruleSource = "import os\n\nX = 1\n\nclass A:\n    \"\"\"doc\"\"\"\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n\n\ndef h():\n    return 3\n"

// ruleCorpus is src/pkg/a.py chunked, src/pkg/__init__.py, and a Markdown
// guide cut into sections the way datasets/cases cuts it.
func ruleCorpus(t *testing.T) *Corpus {
	t.Helper()
	files := &corpus.Corpus{ID: "r", Docs: []corpus.Doc{
		{ID: "src/pkg/a.py", Path: "src/pkg/a.py", Kind: "file", Text: ruleSource},
		{ID: "src/pkg/__init__.py", Path: "src/pkg/__init__.py", Kind: "file", Text: ""},
	}}
	c, _, err := chunk.Corpus(files, chunk.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range c.Docs {
		got = append(got, fmt.Sprintf("%s %d-%d", d.ID, d.StartLine, d.EndLine))
	}
	want := []string{"src/pkg/a.py#<module>@L1-L3 1-3", "src/pkg/a.py#A@L5-L11 5-11", "src/pkg/a.py#A.f@L7-L8 7-8",
		"src/pkg/a.py#A.g@L10-L11 10-11", "src/pkg/a.py#h@L14-L15 14-15"}
	if !slices.Equal(got[:min(len(got), len(want))], want) {
		t.Fatalf("the chunker no longer cuts the rule's source as the table assumes:\n got %q\nwant %q", got, want)
	}
	c.Docs = append(c.Docs,
		corpus.Doc{ID: "docs/guide.md", Path: "docs/guide.md", Kind: "doc_section", StartLine: 1, EndLine: 2, Text: "Intro."},
		corpus.Doc{ID: "docs/guide.md#install", Path: "docs/guide.md", Kind: "doc_section", Symbol: "Install", StartLine: 3, EndLine: 9, Text: "# Install\npip install pkg"},
		corpus.Doc{ID: "docs/guide.md#usage", Path: "docs/guide.md", Kind: "doc_section", Symbol: "Usage", StartLine: 10, EndLine: 20, Text: "# Usage\nimport pkg"},
	)
	// Every definition the parser finds, as harness.Prepare hands them over.
	if c.Defs, err = chunk.Definitions(files); err != nil {
		t.Fatal(err)
	}
	jc := NewCorpus(c)
	jc.Qualify = codetext.NewQualifier(files).Name
	return jc
}

// TestRuleTable is the judging rule of docs/judging.md as a table: for each
// way a hit can arrive, the gold units it satisfies (each alone, grade > 0)
// and why. The gold: the file, class A, method A.f written
// module-qualified, function h written bare, the Install section.
func TestRuleTable(t *testing.T) {
	c := ruleCorpus(t)
	gold := map[string]datasets.Relevant{
		"file":    {Kind: "file", ID: "src/pkg/a.py", Grade: 1},
		"class":   {Kind: "symbol", ID: "pkg.a.A", Grade: 2},
		"method":  {Kind: "symbol", ID: "pkg.a.A.f", Grade: 3},
		"func":    {Kind: "symbol", ID: "h", Grade: 3},
		"section": {Kind: "doc_section", ID: "docs/guide.md#install", Grade: 2},
		"guide":   {Kind: "file", ID: "docs/guide.md", Grade: 1},
	}
	doc := func(id string) Item {
		d, ok := c.Doc(id)
		if !ok {
			t.Fatalf("no doc %s", id)
		}
		return DocItem(d)
	}
	const a = "src/pkg/a.py"
	tests := []struct {
		name   string
		hit    Item
		earns  []string
		reason string
	}{
		{"chunk-id-method", doc("src/pkg/a.py#A.f@L7-L8"), []string{"file", "class", "method"}, "a method is part of its class and its file"},
		{"chunk-id-class", doc("src/pkg/a.py#A@L5-L11"), []string{"file", "class"}, "a class's chunk does not earn its methods' gold"},
		{"chunk-id-module", doc("src/pkg/a.py#<module>@L1-L3"), []string{"file"}, "the module's leftovers are part of the file only"},
		{"chunk-id-func-bare", doc("src/pkg/a.py#h@L14-L15"), []string{"file", "func"}, "a bare name is a dotted suffix of pkg.a.h"},
		{"symbol-method", Item{Path: a, Symbol: "A.f"}, []string{"file", "class", "method"}, "path + symbol points at the definition: the chunk id's credit"},
		{"symbol-qualified", Item{Path: a, Symbol: "pkg.a.A.f"}, []string{"file", "class", "method"}, "the module-qualified name names the same definition"},
		{"symbol-class", Item{Path: a, Symbol: "A"}, []string{"file", "class"}, "the class, not its methods"},
		{"symbol-unknown", Item{Path: a, Symbol: "nosuch"}, []string{"file"}, "a name the file does not define: the whole file"},
		{"symbol-other-file", Item{Path: "src/pkg/b.py", Symbol: "A.f"}, nil, "a definition of another file"},
		{"lines-method", Item{Path: a, StartLine: 7, EndLine: 8}, []string{"file", "class", "method"}, "the method's own lines: the chunk id's credit"},
		{"lines-inside-method", Item{Path: a, StartLine: 8, EndLine: 8}, []string{"file", "class", "method"}, "a line of the method points at the method"},
		{"start-line-only", Item{Path: a, StartLine: 7}, []string{"file", "class", "method"}, "a start line (Codira's lineno) is that one line"},
		{"lines-class", Item{Path: a, StartLine: 5, EndLine: 11}, []string{"file", "class"}, "a class's range does not earn its methods"},
		{"lines-two-methods", Item{Path: a, StartLine: 7, EndLine: 11}, []string{"file", "class"}, "merged neighbours point at what holds both"},
		{"lines-and-blank-after", Item{Path: a, StartLine: 7, EndLine: 9}, []string{"file", "class", "method"}, "the method and the blank line after it: a definition holds the blank lines after it"},
		{"lines-past-method", Item{Path: a, StartLine: 7, EndLine: 10}, []string{"file", "class"}, "into the next method's code is no longer the method"},
		{"lines-across-defs", Item{Path: a, StartLine: 8, EndLine: 14}, []string{"file"}, "lines across two top-level definitions: the file"},
		{"lines-whole-file", Item{Path: a, StartLine: 1, EndLine: 15}, []string{"file"}, "a whole file earns file-level credit only"},
		{"lines-huge", Item{Path: a, StartLine: 1, EndLine: 999999}, []string{"file"}, "lines past the end: the whole file"},
		{"path-only", Item{Path: a}, []string{"file"}, "a path alone is the whole file"},
		{"path-and-text", Item{Path: a, Text: "def f(self):\n        return 1"}, []string{"file"}, "a location's text is not judged: its path is the whole file"},
		{"lines-other-file", Item{Path: "src/pkg/b.py", StartLine: 7, EndLine: 8}, nil, "same lines, another file"},
		{"section-id", doc("docs/guide.md#install"), []string{"section", "guide"}, "the section's doc"},
		{"section-heading", Item{Path: "docs/guide.md", Symbol: "Install"}, []string{"section", "guide"}, "path + heading points at the section"},
		{"section-lines", Item{Path: "docs/guide.md", StartLine: 4, EndLine: 9}, []string{"section", "guide"}, "lines inside the section"},
		{"section-lines-across", Item{Path: "docs/guide.md", StartLine: 3, EndLine: 12}, []string{"guide"}, "lines into the next section: the document"},
		{"section-other", doc("docs/guide.md#usage"), []string{"guide"}, "another section of the document"},
	}
	names := []string{"file", "class", "method", "func", "section", "guide"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, n := range names {
				if r := Rank([]datasets.Relevant{gold[n]}, []Item{tt.hit}, c, nil); r.Grades[0] > 0 {
					got = append(got, n)
				}
			}
			if !slices.Equal(got, tt.earns) {
				t.Errorf("%s: earns %v, want %v", tt.reason, got, tt.earns)
			}
		})
	}
}

// TestRuleSameContent reports one chunk's content every way a hit can
// arrive, each alone and all in one ranking: each alone earns the same
// grade; together the first earns it and the rest are repeats (no unit
// credited twice, no error).
func TestRuleSameContent(t *testing.T) {
	c := ruleCorpus(t)
	gold := []datasets.Relevant{{Kind: "file", ID: "src/pkg/a.py", Grade: 1}, {Kind: "symbol", ID: "pkg.a.A", Grade: 2}, {Kind: "symbol", ID: "pkg.a.A.f", Grade: 3}}
	d, _ := c.Doc("src/pkg/a.py#A.f@L7-L8")
	ways := []Item{
		DocItem(d),
		{Located: true, DocID: "src/pkg/a.py:7-8", Path: d.Path, StartLine: 7, EndLine: 8},
		{Path: d.Path, StartLine: 7},
		{Path: d.Path, Symbol: "A.f"},
		{Path: d.Path, Symbol: "pkg.a.A.f"},
	}
	for i, w := range ways {
		if r := Rank(gold, []Item{w}, c, nil); r.Grades[0] != 3 || r.Units[0] != "gold:symbol:pkg.a.A.f" {
			t.Errorf("way %d %+v: %s grade %d, want the method's gold, grade 3", i, w, r.Units[0], r.Grades[0])
		}
	}
	r := Rank(gold, ways, c, nil)
	if want := []int{3, 0, 0, 0, 0}; !slices.Equal(r.Grades, want) {
		t.Errorf("all ways in one ranking: grades %v, want %v (units %v)", r.Grades, want, r.Units)
	}
	seen := map[string]bool{}
	for _, u := range r.Units {
		if seen[u] {
			t.Errorf("unit %s twice in %v: metrics would refuse the ranking", u, r.Units)
		}
		seen[u] = true
	}
}

// TestRuleRepeatedLocations is the campaign abort of issue 25: two path +
// symbol hits without lines that the corpus cannot place (the span corpus
// of score, or an unknown name) were both "hit:PATH:0-0". They are two
// units, the second a repeat of the first's file.
func TestRuleRepeatedLocations(t *testing.T) {
	gold := []datasets.Relevant{{Kind: "symbol", ID: "x.y", Grade: 1}}
	items := []Item{{Located: true, DocID: "a.py", Path: "a.py", Symbol: "p"}, {Located: true, DocID: "a.py", Path: "a.py", Symbol: "q"}}
	r := Rank(gold, items, SpanCorpus(nil, gold), nil)
	if r.Units[0] == r.Units[1] || !strings.HasPrefix(r.Units[1], "hit:#2:") {
		t.Errorf("units %v: want two distinct non-relevant units, the second by rank", r.Units)
	}
}

// TestRuleNeedleInClassChunk: a method short enough to stay in its class's
// chunk puts its needle in the class chunk's text, whose range spans every
// other method; those methods must not earn the needle (by id or by lines).
func TestRuleNeedleInClassChunk(t *testing.T) {
	c := NewCorpus(&corpus.Corpus{Docs: []corpus.Doc{
		{ID: "k.py#K", Path: "k.py", Symbol: "K", StartLine: 1, EndLine: 20, Language: "python", Text: "class K:\n    def tiny(self): return 42\n"},
		{ID: "k.py#K.other", Path: "k.py", Symbol: "K.other", StartLine: 5, EndLine: 10, Language: "python", Text: "def other(self):\n    return 1\n"},
	}})
	gold := []datasets.Relevant{{Kind: "needle", ID: "n", Body: "def tiny(self): return 42", Language: "python", Grade: 1}}
	for _, tt := range []struct {
		hit  Item
		want int
	}{
		{DocItem(&c.c.Docs[0]), 1},
		{Item{Path: "k.py", StartLine: 1, EndLine: 20}, 1},
		{DocItem(&c.c.Docs[1]), 0},
		{Item{Path: "k.py", StartLine: 5, EndLine: 10}, 0},
		{Item{Path: "k.py", StartLine: 6}, 0},
	} {
		if r := Rank(gold, []Item{tt.hit}, c, nil); r.Grades[0] != tt.want {
			t.Errorf("%+v: grade %d, want %d", tt.hit, r.Grades[0], tt.want)
		}
	}
}

// TestRuleMostSpecificFirst: a hit earns what it points at before what
// holds it, so a method and then its class earn both their golds (issue
// 25's flask-sym-04: with the best grade first, the method took its
// class's gold and the class chunk earned nothing).
func TestRuleMostSpecificFirst(t *testing.T) {
	c := ruleCorpus(t)
	gold := []datasets.Relevant{{Kind: "symbol", ID: "A", Grade: 3}, {Kind: "symbol", ID: "A.f", Grade: 2}, {Kind: "file", ID: "src/pkg/a.py", Grade: 3}}
	f, _ := c.Doc("src/pkg/a.py#A.f@L7-L8")
	a, _ := c.Doc("src/pkg/a.py#A@L5-L11")
	g, _ := c.Doc("src/pkg/a.py#A.g@L10-L11")
	r := Rank(gold, []Item{DocItem(f), DocItem(a), DocItem(g)}, c, nil)
	want := []string{"gold:symbol:A.f", "gold:symbol:A", "gold:file:src/pkg/a.py"}
	if !slices.Equal(r.Units, want) {
		t.Errorf("units %v, want %v", r.Units, want)
	}
}

// TestRuleSymbolPath: a symbol judgment with a path is the definition in
// that file only — one name defined in two files is two golds, with two
// units — and a documentation section whose heading is the name is never
// a symbol's definition.
func TestRuleSymbolPath(t *testing.T) {
	files := &corpus.Corpus{ID: "r", Docs: []corpus.Doc{
		{ID: "a.py", Path: "a.py", Kind: "file", Text: "class Store:\n    def get(self):\n        return 1\n"},
		{ID: "b.py", Path: "b.py", Kind: "file", Text: "class Store:\n    def get(self):\n        return 2\n"},
	}}
	c, _, err := chunk.Corpus(files, chunk.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	c.Docs = append(c.Docs, corpus.Doc{ID: "README.md#store", Path: "README.md", Kind: "doc_section", Symbol: "Store", StartLine: 1, EndLine: 3, Text: "# Store\nThe store."})
	jc := NewCorpus(c)
	jc.Qualify = codetext.NewQualifier(files).Name
	get := func(path string) Item {
		for i := range c.Docs {
			if d := &c.Docs[i]; d.Path == path && d.Symbol == "Store.get" {
				return DocItem(d)
			}
		}
		t.Fatalf("no Store.get in %s", path)
		return Item{}
	}
	inA := datasets.Relevant{Kind: "symbol", ID: "Store.get", Path: "a.py", Grade: 3}
	inB := datasets.Relevant{Kind: "symbol", ID: "Store.get", Path: "b.py", Grade: 1}
	anywhere := datasets.Relevant{Kind: "symbol", ID: "Store.get", Grade: 2}
	if UnitKey(inA) == UnitKey(inB) || UnitKey(inA) != "gold:symbol:a.py:Store.get" || UnitKey(anywhere) != "gold:symbol:Store.get" {
		t.Errorf("unit keys %q, %q, %q: want the path in a symbol's key when it has one", UnitKey(inA), UnitKey(inB), UnitKey(anywhere))
	}
	tests := []struct {
		name   string
		gold   []datasets.Relevant
		hits   []Item
		grades []int
	}{
		{"its-file", []datasets.Relevant{inA}, []Item{get("a.py")}, []int{3}},
		{"other-file", []datasets.Relevant{inA}, []Item{get("b.py")}, []int{0}},
		{"other-file-by-lines", []datasets.Relevant{inA}, []Item{{Located: true, Path: "b.py", StartLine: 2, EndLine: 3}}, []int{0}},
		{"other-file-by-symbol", []datasets.Relevant{inA}, []Item{{Located: true, Path: "b.py", Symbol: "Store.get"}}, []int{0}},
		{"two-golds", []datasets.Relevant{inA, inB}, []Item{get("b.py"), get("a.py")}, []int{1, 3}},
		{"no-path-either-file", []datasets.Relevant{anywhere}, []Item{get("b.py"), get("a.py")}, []int{2, 0}},
		{"heading-is-no-definition", []datasets.Relevant{{Kind: "symbol", ID: "Store", Grade: 3}}, []Item{{DocID: "README.md#store", Path: "README.md", StartLine: 1, EndLine: 3, Symbol: "Store"}}, []int{0}},
	}
	for _, tc := range tests {
		r := Rank(tc.gold, tc.hits, jc, nil)
		if !slices.Equal(r.Grades, tc.grades) {
			t.Errorf("%s: grades %v (units %q), want %v", tc.name, r.Grades, r.Units, tc.grades)
		}
	}
}
