package graph

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/systemstest"
)

// chain is a tiny Python package: app.main → core.compute → util.helper,
// with a second "helper" in other.py that core does not import, a Base
// class subclassed across files, and names that must not link (a string, a
// comment, a dunder).
var chain = map[string]string{
	"pkg/__init__.py": "",
	"pkg/util.py": `"""Utilities."""


def helper(x):
    """Double x."""
    return x * 2


class Base:
    def __init__(self):
        self.n = 0
`,
	"pkg/other.py": `def helper():
    return "helper"


def lonely():
    # helper is mentioned here only in a comment
    return "compute"
`,
	"pkg/core.py": `from pkg.util import helper as double, Base


def compute(values):
    """Sum the doubled values."""
    return sum(double(v) for v in values)


class Engine(Base):
    def __init__(self):
        super().__init__()
`,
	"pkg/app.py": `from . import core
from .core import compute


def main():
    print(compute([1, 2]))
    return core.Engine()
`,
}

func chainCorpus(t *testing.T) *corpus.Corpus {
	t.Helper()
	c := &corpus.Corpus{ID: "chain"}
	for _, p := range []string{"pkg/__init__.py", "pkg/app.py", "pkg/core.py", "pkg/other.py", "pkg/util.py"} {
		c.Docs = append(c.Docs, corpus.Doc{ID: p, Path: p, Kind: chunk.KindFile, Language: codetext.Python, Text: chain[p]})
	}
	cc, _, err := chunk.Corpus(c, chunk.DefaultOptions())
	require.NoError(t, err)
	return cc
}

// idOf returns the chunk ID of the doc defining symbol in file p.
func idOf(t *testing.T, c *corpus.Corpus, p, symbol string) string {
	t.Helper()
	for _, d := range c.Docs {
		if d.Path == p && d.Symbol == symbol {
			return d.ID
		}
	}
	t.Fatalf("no chunk %s in %s; chunks: %v", symbol, p, c.Docs)
	return ""
}

func TestBuild(t *testing.T) {
	c := chainCorpus(t)
	g := Build(c, DefaultMaxCandidates)
	id := func(p, s string) string { return idOf(t, c, p, s) }
	for _, tc := range []struct {
		name    string
		reason  string
		doc     string
		callees []string
		callers []string
	}{{
		name:    "compute",
		reason:  "double is util.helper imported under an alias (rule 2), not other.helper; main calls compute",
		doc:     id("pkg/core.py", "compute"),
		callees: []string{id("pkg/util.py", "helper")},
		callers: []string{id("pkg/app.py", "main")},
	}, {
		name:    "main",
		reason:  "compute by a relative from-import; Engine through the imported module core (rule 3)",
		doc:     id("pkg/app.py", "main"),
		callees: []string{id("pkg/core.py", "compute"), id("pkg/core.py", "Engine")},
	}, {
		name:    "engine",
		reason:  "a subclass uses its base class; the dunder __init__ links nowhere",
		doc:     id("pkg/core.py", "Engine"),
		callees: []string{id("pkg/util.py", "Base")},
		callers: []string{id("pkg/app.py", "main")},
	}, {
		name:    "other-helper",
		reason:  "a same-named function in a module nobody imports is not called",
		doc:     id("pkg/other.py", "helper"),
		callees: nil,
	}, {
		name:    "lonely",
		reason:  "names inside a string and a comment are not uses",
		doc:     id("pkg/other.py", "lonely"),
		callees: nil,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.callees, g.Callees(tc.doc)); diff != "" {
				t.Errorf("%s\ncallees of %s (-want +got):\n%s", tc.reason, tc.doc, diff)
			}
			if diff := cmp.Diff(tc.callers, g.Callers(tc.doc)); diff != "" {
				t.Errorf("%s\ncallers of %s (-want +got):\n%s", tc.reason, tc.doc, diff)
			}
		})
	}
	if got := g.Callees("no/such#doc"); got != nil {
		t.Errorf("Callees of an unknown doc = %v, want nil", got)
	}
}

func TestParseImport(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reason string
		src    string
		want   importStmt
		end    int // tokens consumed
		ok     bool
	}{
		{"import", "plain import stops before the next statement", "import os.path as p\nfoo()", importStmt{names: [][2]string{{"os.path", "p"}}}, 6, true},
		{"from-paren", "parenthesised names with a trailing comma", "from ..a.b import (x, y as z,)\n", importStmt{from: "..a.b", names: [][2]string{{"x", ""}, {"y", "z"}}}, 15, true},
		{"star", "star import names nothing", "from m import *\nbar", importStmt{from: "m"}, 4, true},
		{"yield-from", "yield from is not an import", "from gen", importStmt{}, 0, false},
		{"raise-from", "raise … from is not an import", "from err\nx = 1", importStmt{}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			toks := codetext.Tokens(codetext.Python, tc.src)
			got, end, ok := parseImport(toks, 0)
			if ok != tc.ok || (ok && end != tc.end) {
				t.Fatalf("%s: parseImport(%q) = end %d ok %v, want end %d ok %v (tokens %q)", tc.reason, tc.src, end, ok, tc.end, tc.ok, toks)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(importStmt{})); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSearchExpands(t *testing.T) {
	c := chainCorpus(t)
	id := func(p, s string) string { return idOf(t, c, p, s) }
	compute, helper, main := id("pkg/core.py", "compute"), id("pkg/util.py", "helper"), id("pkg/app.py", "main")
	lonely, other := id("pkg/other.py", "lonely"), id("pkg/other.py", "helper")
	base := &systemstest.Script{Hits: []systems.Hit{
		{DocID: compute, Score: 10}, {DocID: lonely, Score: 9.5}, {DocID: main, Score: 2}, {DocID: other, Score: -1},
	}}
	cfg := Config{Name: "t", Seeds: 1, Decay: 0.9}
	x, err := NewWithBase(cfg, base)
	require.NoError(t, err)
	if _, err := x.Search(t.Context(), "q", 3); err == nil {
		t.Error("Search before Index succeeded")
	}
	require.NoError(t, x.Index(t.Context(), c))
	got, err := x.Search(t.Context(), "q", 4)
	require.NoError(t, err)
	// compute's callee helper and caller main come in at 0.9 × 10 = 9, below
	// lonely (9.5); main keeps the larger of 2 and 9; ties by doc ID.
	want := []systems.Hit{{DocID: compute, Score: 10}, {DocID: lonely, Score: 9.5}, {DocID: main, Score: 9}, {DocID: helper, Score: 9}}
	if main > helper {
		want[2], want[3] = want[3], want[2]
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("expanded list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{4}, base.Depths); diff != "" {
		t.Errorf("base asked for max(k, Seeds) (-want +got):\n%s", diff)
	}

	// Negative seed scores: neighbours still rank below their seed.
	negCfg := Config{Name: "t", Seeds: 1, Decay: 0.9}
	neg := Expand(x.Graph(), []systems.Hit{{DocID: compute, Score: -2}}, negCfg, 10)
	if len(neg) != 3 || neg[0].DocID != compute {
		t.Errorf("negative seed: %v, want compute first and neighbours at -2.2", neg)
	}
	for _, h := range neg[1:] {
		if h.Score != -2.2 {
			t.Errorf("negative seed: neighbour %s scored %v, want -2 − 0.1×2 = -2.2", h.DocID, h.Score)
		}
	}

	// MaxNeighbors keeps callees first.
	capped := Expand(x.Graph(), []systems.Hit{{DocID: compute, Score: 1}}, Config{Seeds: 1, Decay: 0.5, MaxNeighbors: 1}, 10)
	if diff := cmp.Diff([]systems.Hit{{DocID: compute, Score: 1}, {DocID: helper, Score: 0.5}}, capped); diff != "" {
		t.Errorf("MaxNeighbors 1 (-want +got):\n%s", diff)
	}

	require.NoError(t, x.Close())
	if !base.Closed {
		t.Error("Close did not close the base")
	}
}

// pinnedHashes are the config hashes recorded in the committed golden files
// (golden/*/*/graph/*.json).
var pinnedHashes = map[string]string{
	"bm25code-1hop":            "f76521bd0b41cdd5ad07a39b9833565613cbc5c3ed81ef26620e43edd029001b",
	"minilm-1hop":              "3df2caee73c6b20d607f9d1cab7c5a74ec057919265f476b23dcc4e5b6be5add",
	"bge-1hop":                 "fc4f188106ab65e3a7aea994d295ebe5e725a1ebe7791bc09dbb1e15379eefcf",
	"rrf-bm25code-minilm-1hop": "ef22e7dfe4e8cb6e9d0995ed47abe209f714f4c74381cf16bce4c1ea1bd891d3",
}

func TestConfigs(t *testing.T) {
	hashes := map[string]string{}
	for _, c := range Configs() {
		if want := pinnedHashes[c.Name]; c.Hash() != want {
			t.Errorf("%s: Hash = %s, want the golden files' %q", c.Name, c.Hash(), want)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		if other, ok := hashes[c.Hash()]; ok {
			t.Errorf("%s and %s hash the same", c.Name, other)
		}
		hashes[c.Hash()] = c.Name
		got, err := ConfigByName(c.Name)
		require.NoError(t, err)
		if diff := cmp.Diff(c, got, cmpopts.IgnoreFields(systems.Spec{}, "Requires", "New")); diff != "" {
			t.Errorf("ConfigByName(%s) (-want +got):\n%s", c.Name, diff)
		}
		for _, edit := range []func(*Config){
			func(c *Config) { c.Seeds++ },
			func(c *Config) { c.Decay /= 2 },
			func(c *Config) { c.MaxNeighbors++ },
			func(c *Config) { c.MaxCandidates++ },
			func(c *Config) { c.Base.Config = "porter" },
			func(c *Config) { c.Base.Hash = "another base config" },
		} {
			e := c
			edit(&e)
			if e.Hash() == c.Hash() {
				t.Errorf("%s: hash ignores a change: %+v", c.Name, e)
			}
		}
	}
	if _, err := ConfigByName("nope"); err == nil {
		t.Error("ConfigByName accepted an unknown name")
	}
	// A graph indexes its base: it inherits the base's budget.
	c := Configs()[0]
	c.Base.Bench.MaxDocs, c.Base.Bench.MaxDocsReason = 3000, "slow base"
	if s := Spec(c); s.Bench.MaxDocs != 3000 || s.Bench.MaxDocsReason != "slow base" {
		t.Errorf("Spec over a base held to 3000 docs: MaxDocs %d (%q)", s.Bench.MaxDocs, s.Bench.MaxDocsReason)
	}
}

func TestValidate(t *testing.T) {
	ok := Configs()[0]
	for _, tc := range []struct {
		name   string
		reason string
		edit   func(c *Config)
		want   string
	}{
		{"empty-name", "names subtests and files", func(c *Config) { c.Name = "" }, "empty name"},
		{"seeds", "nothing to expand", func(c *Config) { c.Seeds = 0 }, "seeds"},
		{"decay-zero", "neighbours would score 0", func(c *Config) { c.Decay = 0 }, "decay"},
		{"decay-above-one", "neighbours would outrank their seed", func(c *Config) { c.Decay = 1.5 }, "decay"},
		{"max-neighbors", "negative cap", func(c *Config) { c.MaxNeighbors = -1 }, "max neighbors"},
		{"max-candidates", "negative bound", func(c *Config) { c.MaxCandidates = -1 }, "max candidates"},
		{"base-unbuildable", "a base must be buildable", func(c *Config) { c.Base.New = nil }, "no constructor"},
		{"base-unnamed", "a base names its golden files", func(c *Config) { c.Base.System = "" }, "names are required"},
		{"base-unknown", "a named config that does not exist", func(c *Config) { c.Base = named(nil, "nope") }, "names are required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: Validate = %v, want ErrInvalidConfig mentioning %q", tc.reason, err, tc.want)
			}
			if _, err := New(c, systems.Options{}); err == nil {
				t.Error("New accepted the invalid config")
			}
		})
	}
}

// TestBM25Expansion runs the real BM25 base: the query matches compute only,
// and expansion brings in its callee helper and caller main.
func TestBM25Expansion(t *testing.T) {
	c := chainCorpus(t)
	cfg, err := ConfigByName("bm25code-1hop")
	require.NoError(t, err)
	x, err := New(cfg, systems.Options{CacheDir: t.TempDir()})
	require.NoError(t, err)
	defer x.Close()
	require.NoError(t, x.Index(t.Context(), c))
	base, err := x.base.Search(t.Context(), 0, systems.Query{Text: "sum values"}, 10)
	require.NoError(t, err)
	compute := idOf(t, c, "pkg/core.py", "compute")
	require.NotEmpty(t, base)
	require.Equal(t, compute, base[0].DocID, "base ranking")
	got, err := x.Search(t.Context(), "sum values", 10)
	require.NoError(t, err)
	rank := map[string]int{}
	for i, h := range got {
		rank[h.DocID] = i + 1
	}
	for _, want := range []string{idOf(t, c, "pkg/util.py", "helper"), idOf(t, c, "pkg/app.py", "main")} {
		inBase := false
		for _, h := range base {
			inBase = inBase || h.DocID == want
		}
		if inBase {
			t.Errorf("%s is in the base list already; the test needs a query that misses it", want)
		}
		if r := rank[want]; r == 0 || r > 3 {
			t.Errorf("%s at rank %d of %v, want 2 or 3 (neighbour of the top seed)", want, r, got)
		}
	}
}

// TestForwardsFactsAndPeak: the graph hands the task's facts to a base that
// takes them, and reports the base's process peak after Close.
func TestForwardsFactsAndPeak(t *testing.T) {
	c := chainCorpus(t)
	base := &systemstest.Factful{Script: systemstest.Script{Hits: []systems.Hit{{DocID: idOf(t, c, "pkg/core.py", "compute"), Score: 1}}}, Peak: 200 << 20, AtClose: 50 << 20}
	x, err := NewWithBase(Config{Name: "t", Seeds: 1, Decay: 0.5}, base)
	require.NoError(t, err)
	require.NoError(t, x.Index(t.Context(), c))
	q := systems.Query{Text: "compute it", Library: "numpy", Repo: "numpy/numpy"}
	_, err = systems.SearchQuery(t.Context(), x, q, 3)
	require.NoError(t, err)
	_, err = x.Search(t.Context(), "plain", 3)
	require.NoError(t, err)
	if diff := cmp.Diff([]systems.Query{q, {Text: "plain"}}, base.Queries); diff != "" {
		t.Errorf("queries the base got (-want +got):\n%s", diff)
	}
	require.NoError(t, x.Close())
	if got := x.PeakRSS(); got != 250<<20 {
		t.Errorf("PeakRSS after Close = %d MiB, want 250, what the base reported once closed", got>>20)
	}
	y, err := NewWithBase(Config{Name: "u", Seeds: 1, Decay: 0.5}, &systemstest.Script{})
	require.NoError(t, err)
	if got := y.PeakRSS(); got != 0 {
		t.Errorf("PeakRSS of an in-process base = %d, want 0", got)
	}
}
