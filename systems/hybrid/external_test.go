package hybrid

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/repoqa"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
	"github.com/retrievalbench/retrievalbench/systems/external/externaltest"
)

// What fakepeer answers to toyQuery over externaltest.ToyFiles, and what
// that points at by the judge's rule, worked out by hand: "widget" 3 times
// in b.py from line 1 (lines 1-2: class Widget), "frobnicate" twice in a.py
// from line 4 (4-5: def frobnicate), once in c.py on line 3 (in def helper;
// "frobnicator" is another word), once in d.py on line 2 (inside
// "superwidgetry", which BM25 does not match: a file only fakepeer finds).
// fakepeer reports the match's line and the next, and for c.py and d.py
// the next is past the file's last line (3-4 of a 3-line file): no chunk
// holds that range, so it points at the whole file, for the fusion as for
// the judge reading fakepeer's own cell (docs/judging.md).
const toyQuery = "frobnicate widget"

var (
	toyLocations = []systems.Hit{
		{Path: "pkg/b.py", StartLine: 1, EndLine: 2, Symbol: "Widget", Score: 3, Text: "class Widget:"},
		{Path: "pkg/a.py", StartLine: 4, EndLine: 5, Symbol: "frobnicate", Score: 2, Text: "def frobnicate(x):"},
		{Path: "pkg/c.py", StartLine: 3, EndLine: 4, Symbol: "helper", Score: 1, Text: "return frobnicate(1)"},
		{Path: "pkg/d.py", StartLine: 2, EndLine: 3, Symbol: "render_all", Score: 1, Text: "return superwidgetry()"},
	}
	toyResolved = []systems.Hit{{DocID: "pkg/b.py#Widget@L1-L8"}, {DocID: "pkg/a.py#frobnicate@L4-L6"}, {Path: "pkg/c.py"}, {Path: "pkg/d.py"}}
	// toyOnlyExternal is the file only fakepeer finds, as a whole file.
	toyOnlyExternal = systems.Hit{Path: "pkg/d.py"}
)

// TestFusesAnExternalSystem fuses real BM25 (SQLite FTS5) with a real
// external process by RRF over a corpus the harness prepared: the external
// member indexes the whole files, its location hits are fused as the chunks
// they resolve to, and a chunk both members return ranks first. Then the
// harness runs the fusion as a cell, which is what failed before (the
// external member was handed chunks).
func TestFusesAnExternalSystem(t *testing.T) {
	ext := externaltest.FakepeerSpec(t)
	bmc, err := bm25.ConfigByName("code-weighted")
	require.NoError(t, err)
	cfg := Config{Name: "rrf-bm25code-fakepeer", Method: MethodRRF, K: DefaultK, Depth: 10,
		Members: []Member{{Spec: bm25.Spec(bmc), Weight: 1}, {Spec: ext, Weight: 1}}}
	require.NoError(t, cfg.Validate())

	ds := &datasets.Dataset{Name: "toy", Split: "all", Corpora: map[string]*corpus.Corpus{"toy": externaltest.ToyFiles()},
		Tasks: []datasets.Task{{ID: "t1", Query: toyQuery, CorpusID: "toy",
			Gold: []datasets.Relevant{{Kind: "symbol", ID: "frobnicate", Grade: 1}}}}}
	p, err := harness.Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	c := p.Corpora["toy"]
	require.NotNil(t, c.Files, "Prepare keeps the whole files of a chunked corpus")

	var logs []string
	opt := systems.Options{CacheDir: t.TempDir(), Logf: func(f string, a ...any) {
		logs = append(logs, fmt.Sprintf(f, a...))
		t.Logf(f, a...)
	}}

	// The members on their own: BM25 over the chunks, fakepeer over the
	// files (as the harness hands each).
	lists := make([][]systems.Hit, 2)
	for i, m := range cfg.Members {
		s, err := m.Spec.New(opt)
		require.NoError(t, err)
		require.NoError(t, s.Index(t.Context(), p.Input(s, "toy")))
		lists[i], err = s.Search(t.Context(), toyQuery, cfg.Depth)
		require.NoError(t, err)
		require.NoError(t, s.Close())
	}
	if diff := cmp.Diff(toyLocations, lists[1]); diff != "" {
		t.Fatalf("fakepeer on its own (-want +got):\n%s", diff)
	}
	chunkIDs := c.Lookup()
	bm25IDs := make([]string, len(lists[0]))
	for i, h := range lists[0] {
		require.Contains(t, chunkIDs, h.DocID, "BM25 ranks chunks")
		bm25IDs[i] = h.DocID
	}
	for _, id := range bm25IDs {
		require.False(t, strings.HasPrefix(id, toyOnlyExternal.Path+"#"), "the test needs a file only fakepeer finds")
	}

	x, err := New(cfg, opt)
	require.NoError(t, err)
	in := p.Input(x, "toy")
	require.Same(t, c, in, "a hybrid indexes the chunks")
	require.NoError(t, x.Index(t.Context(), in))
	got, err := x.Search(t.Context(), toyQuery, 10)
	require.NoError(t, err)
	require.NoError(t, x.Close())
	if peak := x.PeakRSS(); peak == 0 {
		t.Error("PeakRSS after Close = 0: the fakepeer processes' peak did not reach the fusion")
	}

	var fused []systems.Hit
	for _, h := range got {
		fused = append(fused, systems.Hit{DocID: h.DocID, Path: h.Path})
	}
	for _, h := range toyResolved {
		if !slices.Contains(fused, h) {
			t.Errorf("fused ranking %v lacks %+v, a fakepeer hit as what it points at", fused, h)
		}
	}
	if len(got) == 0 || !slices.Contains(bm25IDs, got[0].DocID) || !slices.Contains(toyResolved, systems.Hit{DocID: got[0].DocID}) {
		t.Errorf("first fused hit %v: want a chunk both members return (BM25 %q, fakepeer %v)", got, bm25IDs, toyResolved)
	}
	// RRF of BM25's list and fakepeer's resolved list, computed here.
	var resolved []systems.Hit
	for i, h := range toyResolved {
		h.Score = toyLocations[i].Score
		resolved = append(resolved, h)
	}
	want := RRF([][]systems.Hit{lists[0], resolved}, []float64{1, 1}, DefaultK)
	if diff := cmp.Diff(want[:min(10, len(want))], got, approx); diff != "" {
		t.Errorf("fused list differs from RRF of BM25's and fakepeer's resolved lists (-want +got):\n%s", diff)
	}
	if !slices.ContainsFunc(logs, func(l string) bool {
		return strings.Contains(l, "member fakepeer/cmd: 4 location hits resolved to chunks or whole files of corpus toy, none dropped")
	}) {
		t.Errorf("no log line of the 4 resolved hits in %q", logs)
	}

	// The same fusion as a harness cell: indexed and judged without error.
	rc := harness.DefaultRunConfig()
	rc.CacheDir, rc.Measures = t.TempDir(), []metrics.Measure{metrics.MRR.At(0)}
	res, err := harness.Run(t.Context(), p, Spec(cfg), rc)
	require.NoError(t, err)
	if tr := res.Tasks[0]; tr.Err != "" || tr.Values[0] <= 0 {
		t.Errorf("harness cell: task error %q, mrr %v; want the gold frobnicate found", tr.Err, tr.Values)
	}
}

// TestFusesAnExternalSystemOnRepoQA is the cell an audit found failing at
// index time ("path also used by doc …": the external member was handed
// chunks): RRF of BM25 and fakepeer on the RepoQA fixture, run by the
// harness. Every task runs, and every ranked item is a chunk of its corpus.
func TestFusesAnExternalSystemOnRepoQA(t *testing.T) {
	ds, err := repoqa.Fixture(filepath.Join("..", "..", "fixtures", "repoqa", "repoqa-fixture.json"), "all", repoqa.DefaultConfig())
	require.NoError(t, err)
	p, err := harness.Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	bmc, err := bm25.ConfigByName("code-weighted")
	require.NoError(t, err)
	cfg := Config{Name: "rrf-bm25code-fakepeer", Method: MethodRRF, K: DefaultK, Depth: DefaultDepth,
		Members: []Member{{Spec: bm25.Spec(bmc), Weight: 1}, {Spec: externaltest.FakepeerSpec(t), Weight: 1}}}
	var resolved int
	rc := harness.DefaultRunConfig()
	rc.CacheDir, rc.Measures = t.TempDir(), []metrics.Measure{metrics.NDCG.At(10), metrics.MRR.At(0)}
	rc.Logf = func(f string, a ...any) {
		if l := fmt.Sprintf(f, a...); strings.Contains(l, "member fakepeer/cmd:") && strings.Contains(l, "location hits resolved") {
			resolved++
		}
	}
	res, err := harness.Run(t.Context(), p, Spec(cfg), rc)
	require.NoError(t, err)
	ids := map[string]map[string]int{}
	for cid, c := range p.Corpora {
		ids[cid] = c.Lookup()
	}
	for i, tr := range res.Tasks {
		if tr.Err != "" {
			t.Errorf("task %s: %s", tr.ID, tr.Err)
			continue
		}
		for _, h := range tr.Hits {
			if _, ok := ids[ds.Tasks[i].CorpusID][h.DocID]; !ok {
				t.Errorf("task %s: rank %d is %q, not a chunk of corpus %s", tr.ID, h.Rank, h.DocID, ds.Tasks[i].CorpusID)
			}
		}
	}
	if resolved != len(p.Corpora) {
		t.Errorf("%d log lines of resolved fakepeer hits, want one per corpus (%d)", resolved, len(p.Corpora))
	}
}
