package judge

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/metrics"
)

// testCorpus is a chunked corpus of two files.
func testCorpus() *corpus.Corpus {
	return &corpus.Corpus{ID: "r", Docs: []corpus.Doc{
		{ID: "src/pkg/adapters.py#HTTPAdapter.send", Path: "src/pkg/adapters.py", Symbol: "HTTPAdapter.send", Kind: "method", Language: "python", StartLine: 10, EndLine: 29,
			Text: "def send(self, request):\n    # send it\n    return self.conn.urlopen(request)\n"},
		{ID: "src/pkg/adapters.py#HTTPAdapter.close", Path: "src/pkg/adapters.py", Symbol: "HTTPAdapter.close", Kind: "method", Language: "python", StartLine: 30, EndLine: 39,
			Text: "def close(self):\n    self.pool.clear()\n"},
		{ID: "docs/auth.rst#New Forms", Path: "docs/auth.rst", Symbol: "New Forms", Kind: "doc", StartLine: 50, EndLine: 70, Text: "New Forms\n=========\nWrite your own auth."},
	}}
}

func qualify(path, _, symbol string) string {
	mod := strings.TrimSuffix(strings.TrimPrefix(path, "src/"), ".py")
	return strings.ReplaceAll(mod, "/", ".") + "." + symbol
}

func TestRankRules(t *testing.T) {
	c := NewCorpus(testCorpus())
	c.Qualify = qualify
	send := datasets.Relevant{Kind: "symbol", ID: "pkg.adapters.HTTPAdapter.send", Grade: 2}
	tests := []struct {
		name   string
		gold   datasets.Relevant
		item   Item
		want   int // grade credited
		reason string
	}{
		{"doc-id", datasets.Relevant{Kind: "doc", ID: "d1", Grade: 1}, Item{DocID: "d1"}, 1, "a doc id names its doc"},
		{"doc-id-other", datasets.Relevant{Kind: "doc", ID: "d1", Grade: 1}, Item{DocID: "d2"}, 0, "another doc"},
		{"doc-location", datasets.Relevant{Kind: "doc", ID: "d1", Grade: 1}, Item{Path: "d1"}, 0, "a location never matches a doc id"},
		{"file-path", datasets.Relevant{Kind: "file", ID: "a.py", Grade: 1}, Item{Path: "a.py", StartLine: 3}, 1, "any hit in the file"},
		{"file-other", datasets.Relevant{Kind: "file", ID: "a.py", Grade: 1}, Item{Path: "b/a.py"}, 0, "paths are compared whole"},
		{"symbol-short", datasets.Relevant{Kind: "symbol", ID: "HTTPAdapter.send", Grade: 2}, Item{Path: "src/pkg/adapters.py", Symbol: "HTTPAdapter.send"}, 2, "the chunker's name"},
		{"symbol-qualified", send, DocItem(&testCorpus().Docs[0]), 2, "module-qualified, as a Python developer writes it"},
		{"symbol-partial-name", datasets.Relevant{Kind: "symbol", ID: "Adapter.send", Grade: 2}, DocItem(&testCorpus().Docs[0]), 0, "suffixes stop at dots"},
		{"symbol-external-name", send, Item{Path: "src/pkg/adapters.py", Symbol: "pkg.adapters.HTTPAdapter.send"}, 2, "an external system's qualified name"},
		{"symbol-lines", send, Item{Path: "src/pkg/adapters.py", StartLine: 12, EndLine: 25}, 2, "lines inside the definition"},
		{"symbol-lines-wider", send, Item{Path: "src/pkg/adapters.py", StartLine: 8, EndLine: 25}, 0, "two lines outside the definition: it points at something wider (widening never earns more)"},
		{"symbol-lines-few", send, Item{Path: "src/pkg/adapters.py", StartLine: 25, EndLine: 35}, 0, "5 of 20 gold lines"},
		{"symbol-start-line", send, Item{Path: "src/pkg/adapters.py", StartLine: 10}, 2, "a start line inside the definition (Codira's lineno)"},
		{"symbol-start-outside", send, Item{Path: "src/pkg/adapters.py", StartLine: 31}, 0, "a start line in another definition"},
		{"symbol-other-file", send, Item{Path: "src/pkg/other.py", StartLine: 10, EndLine: 29}, 0, "same lines, other file"},
		{"needle-text", datasets.Relevant{Kind: "needle", Body: "def send(self, request):\n    return self.conn.urlopen(request)", Language: "python", ID: "n", Grade: 1},
			Item{Text: "def send(self, request):  return self.conn.urlopen(request)"}, 1, "token equivalence, comments and spacing aside"},
		{"needle-lines", datasets.Relevant{Kind: "needle", Body: "return self.conn.urlopen(request)", Language: "python", ID: "n", Grade: 1},
			Item{Path: "src/pkg/adapters.py", StartLine: 10, EndLine: 29}, 1, "lines cover the chunk holding the needle"},
		{"needle-lines-miss", datasets.Relevant{Kind: "needle", Body: "return self.conn.urlopen(request)", Language: "python", ID: "n", Grade: 1},
			Item{Path: "src/pkg/adapters.py", StartLine: 30, EndLine: 39}, 0, "lines of another chunk"},
		{"section-id", datasets.Relevant{Kind: "doc_section", ID: "docs/auth.rst#New Forms", Grade: 1}, Item{DocID: "docs/auth.rst#New Forms"}, 1, "the section's doc id"},
		{"section-lines", datasets.Relevant{Kind: "doc_section", ID: "docs/auth.rst#New Forms", Grade: 1}, Item{Path: "docs/auth.rst", StartLine: 52, EndLine: 66}, 1, "lines inside the section"},
		{"section-lines-wider", datasets.Relevant{Kind: "doc_section", ID: "docs/auth.rst#New Forms", Grade: 1}, Item{Path: "docs/auth.rst", StartLine: 48, EndLine: 66}, 0, "lines reaching into the previous section"},
		{"needle-text-path", datasets.Relevant{Kind: "needle", Body: "return self.conn.urlopen(request)", Language: "python", ID: "n", Grade: 1}, Item{Path: "x.py", Text: "return self.conn.urlopen(request)"}, 0, "a location with a path and no lines points at its whole file, whatever text it carries"},
		{"no-lines", send, Item{Path: "src/pkg/adapters.py"}, 0, "a location without lines covers nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Rank([]datasets.Relevant{tt.gold}, []Item{tt.item}, c, nil)
			if r.Grades[0] != tt.want {
				t.Errorf("%s: grade %d, want %d (unit %s)", tt.reason, r.Grades[0], tt.want, r.Units[0])
			}
		})
	}
}

// TestRankCreditsOnce is issue 12's example: one gold file and the ranking
// a.py#f, b.py#h, a.py#g. The second chunk of a.py earns nothing, so the
// ranking is ideal (nDCG@10 = 1) on every path that judges.
func TestRankCreditsOnce(t *testing.T) {
	gold := []datasets.Relevant{{Kind: "file", ID: "a.py", Grade: 1}}
	items := []Item{{DocID: "a.py#f", Path: "a.py"}, {DocID: "b.py#h", Path: "b.py"}, {DocID: "a.py#g", Path: "a.py"}}
	got := Rank(gold, items, nil, nil)
	want := Ranking{
		Units:  []string{"gold:file:a.py", "hit:b.py#h", "hit:a.py#g"},
		Grades: []int{1, 0, 0},
		Qrels:  map[string]int{"gold:file:a.py": 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Rank (-want +got):\n%s", diff)
	}
}

func TestRankPooled(t *testing.T) {
	gold := []datasets.Relevant{{Kind: "file", ID: "a.py", Grade: 2}, {Kind: "file", ID: "z.py", Grade: 1}}
	items := []Item{{DocID: "b.py#h", Path: "b.py"}, {DocID: "a.py#f", Path: "a.py"}, {DocID: "c.py#k", Path: "c.py"}}
	pool := []Pooled{
		{Item: Item{DocID: "b.py#h", Path: "b.py"}, Grade: 3}, // a relevant doc the case file missed
		{Item: Item{DocID: "a.py#g", Path: "a.py"}, Grade: 1}, // a chunk of a gold file: the gold unit's
		{Item: Item{DocID: "d.py#m", Path: "d.py"}, Grade: 1}, // pooled from another system
		{Item: Item{DocID: "c.py#k", Path: "c.py"}, Grade: 0}, // judged not relevant
	}
	got := Rank(gold, items, nil, pool)
	want := Ranking{
		Units:  []string{"pool:b.py#h", "gold:file:a.py", "pool:c.py#k"},
		Grades: []int{3, 2, 0},
		Qrels:  map[string]int{"gold:file:a.py": 2, "gold:file:z.py": 1, "pool:b.py#h": 3, "pool:d.py#m": 1, "pool:c.py#k": 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Rank (-want +got):\n%s", diff)
	}
}

func TestComposite(t *testing.T) {
	c := NewCorpus(&corpus.Corpus{Docs: []corpus.Doc{
		{ID: "np.sum", Text: "numpy.sum(a, axis=None, dtype=None) Sum of array elements over a given axis."},
		{ID: "np.mean", Text: "numpy.mean(a, axis=None) Compute the arithmetic mean along the specified axis."},
	}})
	gold := []datasets.Relevant{{Kind: "doc", ID: "np.sum", Grade: 1}}
	for _, tt := range []struct {
		name string
		blob string
		want int
	}{
		{"verbatim", "Library docs:\nnumpy.sum(a, axis=None, dtype=None)\n  Sum of array elements over a given axis.\nMore text follows here.", 1},
		{"edited", "numpy.sum(a, axis=None, dtype=None)  Sum of the array elements over a given axis!", 1},
		{"rewritten", "sum(): adds up an array along some axis, numpy style", 0},
		{"other-doc", "numpy.mean(a, axis=None) Compute the arithmetic mean along the specified axis.", 0},
		{"empty", "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Composite(gold, []Item{{Text: tt.blob}}, c)
			if len(r.Units) != 1 || r.Grades[0] != tt.want {
				t.Errorf("Composite = %v %v, want one item of grade %d", r.Units, r.Grades, tt.want)
			}
		})
	}
	// Packed corpus docs keep their identity.
	r := Composite(gold, []Item{{DocID: "np.mean"}, {DocID: "np.sum"}}, c)
	if r.Units[0] != "gold:doc:np.sum" {
		t.Errorf("packed docs: %v, want the gold doc as the blob's unit", r.Units)
	}
}

// lcsDP is the textbook O(n·m) dynamic programme, the reference for LCS.
func lcsDP(a, b string) int {
	prev := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] > cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev = cur
	}
	return prev[len(b)]
}

func TestLCSAgainstDP(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		gen := func() string {
			b := make([]byte, r.IntN(200))
			for i := range b {
				b[i] = "abcd efg"[r.IntN(8)]
			}
			return string(b)
		}
		a, b := gen(), gen()
		if got, want := LCS(a, b), lcsDP(a, b); got != want {
			t.Fatalf("LCS(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

func TestPartialRatio(t *testing.T) {
	for _, tt := range []struct {
		a, b     string
		min, max int
	}{
		{"hello world", "say hello world now", 100, 100},
		{"", "x", 0, 0},
		{"abcdefghijklmnop", "zzabcdefghijklmnpzz", 90, 99}, // one byte dropped
		{"completely different text", "nothing alike in here at all!", 0, 70},
	} {
		if got := PartialRatio(tt.a, tt.b); got < tt.min || got > tt.max {
			t.Errorf("PartialRatio(%q, %q) = %d, want %d..%d", tt.a, tt.b, got, tt.min, tt.max)
		}
	}
}

func TestLibraryMatches(t *testing.T) {
	for _, tt := range []struct {
		id, lib string
		want    bool
	}{
		{"/numpy/numpy", "Numpy", true},
		{"/scikit-learn/scikit-learn", "Sklearn", true},
		{"/pytorch/pytorch", "Pytorch", true},
		{"/pandas-dev/pandas", "Numpy", false},
		{"", "Numpy", false},
		{"/numpy/numpy", "", false},
	} {
		if got := LibraryMatches(tt.id, tt.lib); got != tt.want {
			t.Errorf("LibraryMatches(%q, %q) = %v, want %v", tt.id, tt.lib, got, tt.want)
		}
	}
}

// TestLibraryResolutionMeasure scores the judge's measure through
// metrics.Score, next to a built-in one, from the Resolution the harness
// hands over: the first hit's library against the task's.
func TestLibraryResolutionMeasure(t *testing.T) {
	ms := []metrics.Measure{metrics.Hit.At(1), LibraryResolution.At(1)}
	for _, tt := range []struct {
		name, reason string
		task         any
		want         float64
	}{
		{"resolved", "the first hit's library id names the task's library", Resolution{"/numpy/numpy", "Numpy"}, 1},
		{"other_library", "another library's id", Resolution{"/pandas-dev/pandas", "Numpy"}, 0},
		{"no_hits", "nothing resolved", Resolution{"", "Numpy"}, 0},
		{"no_resolution", "a ranking scored without a Resolution resolves nothing", nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := metrics.Score([]string{"a"}, map[string]int{"a": 1}, ms, metrics.Options{Task: tt.task})
			if err != nil {
				t.Fatal(err)
			}
			if got[0] != 1 || got[1] != tt.want {
				t.Errorf("%s: values %v, want [1 %v]", tt.reason, got, tt.want)
			}
		})
	}
	if _, err := metrics.Score(nil, nil, []metrics.Measure{LibraryResolution.At(0)}, metrics.Options{}); err == nil {
		t.Errorf("library_resolution without its cutoff: want an error")
	}
}
