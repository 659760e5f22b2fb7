package repoqa

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// pySrc has exactly two eligible functions (load_config, Cache.evict) and one
// of every kind the generator must skip.
const pySrc = `"""Module docstring is not a function docstring."""


def load_config(path, env=None):
    """Read the settings file and merge environment overrides into it.

    Longer explanation that is not part of the summary.
    """
    data = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.partition("=")
            data[key.strip()] = value.strip()
    if env:
        data.update(env)
    return data


def short_one(x):
    """Return the input value unchanged always."""
    return x


def few_words(x):
    """Does things."""
    a = x
    b = a
    c = b
    d = c
    return d


def same_line(x): """Docstring on the def line is skipped."""; return x


class Cache:
    def __init__(self, size):
        """Create a cache holding at most size entries."""
        self.size = size
        self.data = {}
        self.hits = 0
        self.misses = 0
        self.order = []

    def evict(self):
        """Remove the least recently used entry from the cache."""
        if not self.order:
            return None
        key = self.order.pop(0)
        value = self.data.pop(key)
        self.size -= 0
        return key, value

    def test_helper(self):
        """Helpers named like tests are skipped too."""
        a = 1
        b = 2
        c = 3
        d = 4
        return a + b + c + d
`

const pyTest = `def check_everything_works_fine():
    """Verify that the whole pipeline works end to end."""
    a = 1
    b = 2
    c = 3
    d = 4
    return a + b + c + d
`

func testRelease() *Release {
	return &Release{File: "mem.json", Repos: []Repo{{
		Language: "python", Repo: "o/r", CommitSHA: "c", EntrypointPath: "pkg",
		Content: map[string]string{"pkg/mod.py": pySrc, "pkg/tests/test_mod.py": pyTest, "pkg/conftest.py": pyTest},
	}}}
}

func TestGenerateRules(t *testing.T) {
	ds, err := Generate(testRelease(), DefaultGeneratorConfig())
	require.NoError(t, err)
	got := map[string]string{}
	for _, tk := range ds.Tasks {
		got[tk.ID] = tk.Query
	}
	want := map[string]string{
		"o/r::pkg/mod.py#load_config": "Read the settings file and merge environment overrides into it.",
		"o/r::pkg/mod.py#Cache.evict": "Remove the least recently used entry from the cache.",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("generated tasks (-want +got):\n%s", d)
	}

	text := ds.Corpora["o/r"].Docs[ds.Corpora["o/r"].Lookup()["pkg/mod.py"]].Text
	for _, tk := range ds.Tasks {
		if strings.Contains(text, tk.Query) {
			t.Errorf("%s: query text still in the indexed file", tk.ID)
		}
		body := tk.Gold[0].Body
		if !strings.Contains(text, body) {
			t.Errorf("%s: gold body not in the modified file", tk.ID)
		}
		if strings.Contains(body, `"""`) {
			t.Errorf("%s: gold body still has a docstring:\n%s", tk.ID, body)
		}
	}
	// Only the chosen docstrings are removed.
	for _, keep := range []string{"Create a cache holding", "Docstring on the def line", "Return the input value", "Module docstring"} {
		if !strings.Contains(text, keep) {
			t.Errorf("docstring %q was removed but not chosen", keep)
		}
	}
	// The removal takes whole lines: the body has no blank line where the
	// docstring was.
	if want := "def evict(self):\n        if not self.order:"; !strings.Contains(text, want) {
		t.Errorf("evict after removal does not start with %q:\n%s", want, text)
	}
}

func TestSummary(t *testing.T) {
	tests := []struct{ lit, want, reason string }{
		{`"""One line."""`, "One line.", "triple quotes stripped"},
		{"r'''\n    First para\n    continues here.\n\n    Second.'''", "First para continues here.", "first paragraph only, joined"},
		{`"""A. B. C. D. E. F."""`, "A. B. C. D. E. F.", "short text is not cut"},
		{`""":param x: the x"""`, "", "field lists are not summaries"},
		{"\"\"\"Decorator for routes. Example::\n\n    @x\"\"\"", "Decorator for routes.", "a literal-block introduction is dropped"},
		{`"""Usage is as follows::"""`, "Usage is as follows:", "a lone introduction keeps one colon"},
		{`"""` + strings.Repeat("word ", 45) + `end. Tail words here."""`, strings.TrimSpace(strings.Repeat("word ", 45)) + " end.", "long paragraph cut to first sentence"},
	}
	for _, tc := range tests {
		if got := summary(tc.lit, 40); got != tc.want {
			t.Errorf("%s: summary(%q) = %q, want %q", tc.reason, tc.lit, got, tc.want)
		}
	}
}

func TestPythonDocstringData(t *testing.T) {
	testenv.MustHaveData(t, CorporaFile)
	dir, _ := testenv.DataDir()
	cfg := DefaultConfig()

	a, err := PythonDocstring(dir, datasets.SplitAll, cfg)
	require.NoError(t, err)
	b, err := PythonDocstring(dir, datasets.SplitAll, cfg)
	require.NoError(t, err)
	if d := cmp.Diff(a.Tasks, b.Tasks); d != "" {
		t.Fatalf("generator is not deterministic (-first +second):\n%s", d)
	}
	perRepo := map[string]int{}
	for _, tk := range a.Tasks {
		perRepo[tk.Meta.Repo]++
	}
	if len(perRepo) != 10 {
		t.Errorf("tasks from %d repos, want 10: %v", len(perRepo), perRepo)
	}
	for repo, n := range perRepo {
		if n != cfg.Generator.PerRepo {
			t.Errorf("%s: %d tasks, want %d", repo, n, cfg.Generator.PerRepo)
		}
	}
	t.Logf("tasks per repo: %v (total %d)", perRepo, len(a.Tasks))

	orig, err := ReadRelease(dir + "/" + CorporaFile)
	require.NoError(t, err)
	origContent := map[string]map[string]string{}
	for _, r := range orig.Repos {
		origContent[r.Repo] = r.Content
	}
	collapsed := map[string][]string{}
	for id, c := range a.Corpora {
		for _, d := range c.Docs {
			collapsed[id] = append(collapsed[id], collapse(d.Text))
		}
	}
	for _, tk := range a.Tasks {
		c := a.Corpora[tk.CorpusID]
		path, qname, _ := strings.Cut(tk.Gold[0].ID, "#")
		doc := c.Docs[c.Lookup()[path]]
		if !strings.Contains(doc.Text, tk.Gold[0].Body) {
			t.Errorf("%s: gold body not in %s", tk.ID, path)
		}
		name := qname[strings.LastIndex(qname, ".")+1:]
		if !strings.Contains(tk.Gold[0].Body, "def "+name+"(") {
			t.Errorf("%s: body does not define %s", tk.ID, name)
		}
		if !strings.Contains(collapse(origContent[tk.CorpusID][path]), tk.Query) {
			t.Errorf("%s: query %q is not in the original file", tk.ID, tk.Query)
		}
		for i, text := range collapsed[tk.CorpusID] {
			if strings.Contains(text, tk.Query) {
				t.Errorf("%s: query %q still in indexed %s", tk.ID, tk.Query, c.Docs[i].Path)
			}
		}
	}

	// The loader's split equals datasets.Split salted with the dataset name.
	small, err := PythonDocstring(dir, datasets.SplitSmallTest, cfg)
	require.NoError(t, err)
	sc := cfg.Split
	sc.Salt = NamePythonDocstring
	want, err := datasets.Split(a.Tasks, datasets.SplitSmallTest, sc)
	require.NoError(t, err)
	if d := cmp.Diff(taskIDs(want), taskIDs(small.Tasks)); d != "" {
		t.Errorf("small_test differs from datasets.Split (-want +got):\n%s", d)
	}
	if len(small.Corpora) != 10 {
		t.Errorf("small_test keeps %d corpora, want the 10 its tasks use", len(small.Corpora))
	}
	dev, err := datasets.Split(a.Tasks, datasets.SplitDev, sc)
	require.NoError(t, err)
	test, err := datasets.Split(a.Tasks, datasets.SplitTest, sc)
	require.NoError(t, err)
	if len(dev) != 50 || len(test) != 50 || len(small.Tasks) != 30 {
		t.Errorf("split sizes dev %d test %d small_test %d, want 50 50 30", len(dev), len(test), len(small.Tasks))
	}
	inTest := map[string]bool{}
	for _, tk := range test {
		inTest[tk.ID] = true
	}
	for _, tk := range small.Tasks {
		if !inTest[tk.ID] {
			t.Errorf("small_test task %s is not in test", tk.ID)
		}
	}
}
