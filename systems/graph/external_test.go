package graph

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
	"github.com/retrievalbench/retrievalbench/systems/external/externaltest"
	"github.com/retrievalbench/retrievalbench/systems/hybrid"
	"github.com/retrievalbench/retrievalbench/systems/systemstest"
)

// Chunks of externaltest.ToyFiles (package chunk; checked by the tests).
const (
	widget     = "pkg/b.py#Widget@L1-L8"
	frobnicate = "pkg/a.py#frobnicate@L4-L6"
	scale      = "pkg/a.py#scale@L9-L10"
	helper     = "pkg/c.py#helper@L1-L3"
	renderAll  = "pkg/d.py#render_all@L1-L2"
)

// prepared is externaltest.ToyFiles as harness.Prepare chunks it (Files set), with one
// task.
func prepared(t *testing.T) *harness.Prepared {
	t.Helper()
	ds := &datasets.Dataset{Name: "toy", Split: "all", Corpora: map[string]*corpus.Corpus{"toy": externaltest.ToyFiles()},
		Tasks: []datasets.Task{{ID: "t1", Query: "frobnicate widget", CorpusID: "toy",
			Gold: []datasets.Relevant{{Kind: "symbol", ID: "scale", Grade: 1}}}}}
	p, err := harness.Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	c := p.Corpora["toy"]
	require.NotNil(t, c.Files)
	for _, id := range []string{widget, frobnicate, scale, helper, renderAll} {
		require.Contains(t, c.Lookup(), id, "the chunks this test is worked out for")
	}
	return p
}

// TestExpandsLocationHits: a whole-file base gets the whole files, and its
// location hits seed the expansion as the chunks they resolve to.
func TestExpandsLocationHits(t *testing.T) {
	c := prepared(t).Corpora["toy"]
	base := &systemstest.Files{Script: systemstest.Script{Hits: []systems.Hit{
		{Path: "notes.txt", Score: 9},                          // not in the corpus: dropped
		{Path: "pkg/a.py", StartLine: 4, EndLine: 5, Score: 5}, // frobnicate
		{Path: "pkg/a.py", StartLine: 6, Score: 4},             // frobnicate again: one seed
		{Path: "pkg/d.py", Score: 1},                           // the whole file: kept, never expanded
	}}}
	x, err := NewWithBase(Config{Name: "t", Seeds: 2, Decay: 0.5, MaxCandidates: 1}, base)
	require.NoError(t, err)
	var logs []string
	x.base.Logf = func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }
	require.NoError(t, x.Index(t.Context(), c))
	if base.Got != c.Files {
		t.Errorf("the whole-file base indexed %v, want the corpus's whole files", base.Got)
	}
	got, err := x.Search(t.Context(), "q", 10)
	require.NoError(t, err)
	// Seeds frobnicate (5) and the whole file d.py (1, no node of the
	// graph): frobnicate brings its callee scale and its caller helper at
	// 0.5 × 5.
	want := []systems.Hit{{DocID: frobnicate, Score: 5}, {DocID: scale, Score: 2.5}, {DocID: helper, Score: 2.5}, {Path: "pkg/d.py", Score: 1}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("expanded (-want +got):\n%s", diff)
	}
	require.NoError(t, x.Close())
	var located []string
	for _, l := range logs {
		if strings.Contains(l, "location hits") {
			located = append(located, l)
		}
	}
	if len(located) != 1 || !strings.Contains(located[0], "3 of 4 location hits resolved to chunks or whole files of corpus toy; 1 dropped") || !strings.Contains(located[0], `"notes.txt"`) {
		t.Errorf("log lines %q, want one of 3 resolved and 1 dropped (notes.txt)", logs)
	}
}

// TestExpandsAnExternalSystem expands a real external process's ranking,
// then that of a hybrid of BM25 and it, over a corpus the harness prepared.
func TestExpandsAnExternalSystem(t *testing.T) {
	p := prepared(t)
	ext := externaltest.FakepeerSpec(t)
	opt := systems.Options{CacheDir: t.TempDir(), Logf: t.Logf}

	t.Run("external-base", func(t *testing.T) {
		cfg := Config{Name: "fakepeer-1hop", Base: ext, Seeds: DefaultSeeds, Decay: DefaultDecay, MaxCandidates: DefaultMaxCandidates}
		x, err := New(cfg, opt)
		require.NoError(t, err)
		require.NoError(t, x.Index(t.Context(), p.Input(x, "toy")))
		got, err := x.Search(t.Context(), "frobnicate widget", 10)
		require.NoError(t, err)
		callees := x.Graph().Callees(frobnicate)
		require.NoError(t, x.Close())
		if peak := x.PeakRSS(); peak == 0 {
			t.Error("PeakRSS after Close = 0: the fakepeer processes' peak did not reach the graph")
		}
		// fakepeer, worked out by hand: b.py 3 ("widget", lines 1-2: class
		// Widget), a.py 2 (4-5, def frobnicate), c.py 1 (3-4, in helper),
		// d.py 1 (2-3, "superwidgetry" in render_all). c.py's and d.py's
		// ranges run a line past the file's end: by the judge's rule they
		// point at their whole files, kept and never expanded. The chunks
		// seed the expansion: frobnicate's callee scale and caller helper
		// come in at 0.9 × 2; Widget has no neighbours.
		want := []systems.Hit{
			{DocID: widget, Score: 3}, {DocID: frobnicate, Score: 2},
			{DocID: scale, Score: 1.8}, {DocID: helper, Score: 1.8}, {Path: "pkg/c.py", Score: 1}, {Path: "pkg/d.py", Score: 1},
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("expanded fakepeer ranking (-want +got):\n%s", diff)
		}
		if !slices.Contains(callees, scale) {
			t.Errorf("graph: frobnicate calls %q, want scale among them", callees)
		}
	})

	t.Run("hybrid-base", func(t *testing.T) {
		bmc, err := bm25.ConfigByName("code-weighted")
		require.NoError(t, err)
		hy := hybrid.Config{Name: "rrf-bm25code-fakepeer", Method: hybrid.MethodRRF, K: hybrid.DefaultK, Depth: 10,
			Members: []hybrid.Member{{Spec: bm25.Spec(bmc), Weight: 1}, {Spec: ext, Weight: 1}}}
		cfg := Config{Name: "rrf-bm25code-fakepeer-1hop", Base: hybrid.Spec(hy), Seeds: DefaultSeeds, Decay: DefaultDecay, MaxCandidates: DefaultMaxCandidates}
		rc := harness.DefaultRunConfig()
		rc.CacheDir, rc.Measures, rc.Logf = t.TempDir(), []metrics.Measure{metrics.MRR.At(0)}, t.Logf
		res, err := harness.Run(t.Context(), p, Spec(cfg), rc)
		require.NoError(t, err)
		tr := res.Tasks[0]
		require.Empty(t, tr.Err, "the cell's task")
		var ids []string
		for _, h := range tr.Hits {
			if h.DocID == "" {
				ids = append(ids, h.Path) // a whole file
				continue
			}
			ids = append(ids, h.DocID)
		}
		// d.py (a whole file) only fakepeer finds; scale only the expansion
		// brings.
		for _, id := range []string{"pkg/d.py", scale} {
			if !slices.Contains(ids, id) {
				t.Errorf("graph over the hybrid: ranking %q lacks %s", ids, id)
			}
		}
		if tr.Values[0] <= 0 {
			t.Errorf("mrr %v: the gold scale (a callee of a seed) was not ranked", tr.Values)
		}

		// The peak of fakepeer's processes passes through both wrappers.
		x, err := New(cfg, opt)
		require.NoError(t, err)
		require.NoError(t, x.Index(t.Context(), p.Input(x, "toy")))
		_, err = x.Search(t.Context(), "frobnicate widget", 10)
		require.NoError(t, err)
		require.NoError(t, x.Close())
		if peak := x.PeakRSS(); peak == 0 {
			t.Error("PeakRSS of the graph over the hybrid = 0, want fakepeer's")
		}
	})
}
