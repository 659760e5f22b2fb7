package campaign

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/internal/shard"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/builtin"
)

const fixture = "../fixtures/cases"

func bm25Spec(t *testing.T) systems.Spec {
	t.Helper()
	s, ok := builtin.Find(builtin.Specs(), "bm25/code-weighted")
	if !ok {
		t.Fatal("no bm25/code-weighted among the built-in systems")
	}
	return s
}

// firstDocs is a stand-in system that returns the first k docs of a
// corpus; with empty set it returns nothing.
type firstDocs struct {
	docs  []corpus.Doc
	empty bool
}

func (f *firstDocs) Index(_ context.Context, c *corpus.Corpus) error { f.docs = c.Docs; return nil }
func (f *firstDocs) Search(_ context.Context, _ string, k int) ([]systems.Hit, error) {
	if f.empty {
		return nil, nil
	}
	var hs []systems.Hit
	for i := 0; i < k && i < len(f.docs); i++ {
		hs = append(hs, systems.Hit{DocID: f.docs[i].ID, Score: float64(k - i)})
	}
	return hs, nil
}
func (f *firstDocs) Close() error { return nil }

// badIndex fails every Index with an error that names "creating system".
type badIndex struct{ firstDocs }

func (badIndex) Index(context.Context, *corpus.Corpus) error {
	return errors.New("creating system tables: disk full")
}

// wrongDim claims 100-dimensional vectors.
type wrongDim struct{ firstDocs }

func (wrongDim) VectorDim(context.Context) (int, error) { return 100, nil }

// TestFailingModelReported runs a campaign in which one "model" cannot be
// created, one lacks its files, one returns nothing, and checks that each
// is reported while BM25 completes with reports and a pool.
func TestFailingModelReported(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cases = filepath.Join(fixture, "cases.jsonl")
	cfg.Repos = filepath.Join(fixture, "manifest.json")
	cfg.CacheDir = t.TempDir()
	cfg.PoolDepth = 3
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	cfg.Report.Rules.MinCases = 2
	cfg.Specs = []systems.Spec{
		bm25Spec(t),
		{System: "dense", Config: "broken", Hash: "test-broken", New: func(systems.Options) (systems.System, error) {
			return nil, errors.New("model file is corrupt")
		}},
		{System: "dense", Config: "absent", Hash: "test-absent", Requires: func(string) *systems.Requirement {
			return &systems.Requirement{Kind: systems.NeedsModels, Reason: "absent: model.onnx missing"}
		}},
		{System: "stub", Config: "empty", Hash: "test-empty", New: func(systems.Options) (systems.System, error) { return &firstDocs{empty: true}, nil }},
		{System: "stub", Config: "first", Hash: "test-first", New: func(systems.Options) (systems.System, error) { return &firstDocs{}, nil }},
		// Fails to index with an error whose text reads like a failure to
		// build: classified by its type (harness.ErrNewSystem), not its text.
		{System: "stub", Config: "badindex", Hash: "test-badindex", New: func(systems.Options) (systems.System, error) { return &badIndex{}, nil }},
		// Named after a manifest model (384 dimensions) but 100-dimensional.
		{System: "dense", Config: "minilm-l6-q", Hash: "test-minilm-l6-q", Dimension: 384, New: func(systems.Options) (systems.System, error) { return &wrongDim{}, nil }},
	}
	out := t.TempDir()
	res, err := Run(t.Context(), cfg, out)
	require.NoError(t, err)

	status := map[string]string{}
	for _, s := range res.Campaign.Systems {
		status[s.Name] = s.Status
	}
	want := map[string]string{"bm25/code-weighted": "ok", "dense/broken": "failed", "dense/absent": "failed", "stub/empty": "partial", "stub/first": "ok", "stub/badindex": "failed", "dense/minilm-l6-q": "ok"}
	if diff := cmp.Diff(want, status); diff != "" {
		t.Errorf("system status (-want +got):\n%s", diff)
	}
	kinds := map[string]int{}
	for _, f := range res.Campaign.Failures {
		kinds[f.System+" "+f.Kind]++
	}
	for k, n := range map[string]int{"dense/broken model_failed": 2, "dense/absent model_failed": 1, "stub/empty empty_results": 10, "dense/minilm-l6-q dimension_mismatch": 1, "stub/badindex index_failed": 2, "stub/badindex model_failed": 0} {
		if kinds[k] != n {
			t.Errorf("failures %q = %d, want %d (all: %v)", k, kinds[k], n, kinds)
		}
	}
	for _, f := range append(report.Files, "run.json", "grading-sheet.csv", "pooled-results.jsonl") {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("output %s: %v", f, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "quality-summary.md"))
	require.NoError(t, err)
	for _, s := range []string{"model_failed dense/broken", "model file is corrupt", "| dense/broken | **rejected** | system_failed"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("quality-summary.md lacks %q", s)
		}
	}
	var bm25Recs int
	for _, r := range res.Records {
		if r.System == "bm25" && len(r.Hits) > 0 {
			bm25Recs++
		}
	}
	if bm25Recs != 10 {
		t.Errorf("bm25 answered %d cases, want all 10", bm25Recs)
	}
}

func TestRepoMissing(t *testing.T) {
	dir := t.TempDir()
	abs, err := filepath.Abs(filepath.Join(fixture, "repos", "minikv"))
	require.NoError(t, err)
	manifest := filepath.Join(dir, "manifest.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"minikv": {"path": "`+abs+`", "commit": "fixture-v1"}, "shorturl": {"path": "gone", "commit": "x"}}`), 0o644))
	cfg := DefaultConfig()
	cfg.Cases = filepath.Join(fixture, "cases.jsonl")
	cfg.Repos = manifest
	cfg.CacheDir = t.TempDir()
	cfg.Specs = []systems.Spec{bm25Spec(t)}
	res, err := Run(t.Context(), cfg, t.TempDir())
	require.NoError(t, err)
	var missing []string
	for _, f := range res.Campaign.Failures {
		if f.Kind == campaignfmt.FailRepoMissing {
			missing = append(missing, f.Repo)
		}
	}
	if diff := cmp.Diff([]string{"shorturl"}, missing); diff != "" {
		t.Errorf("repo_missing (-want +got):\n%s", diff)
	}
	if res.Summary.Cases != 6 {
		t.Errorf("cases = %d, want minikv's 6", res.Summary.Cases)
	}
}

func TestConfigValidate(t *testing.T) {
	cfg := DefaultConfig()
	if err := cfg.Validate(); err == nil {
		t.Error("empty config validates")
	}
	cfg.Cases, cfg.Repos, cfg.Specs = "c", "r", []systems.Spec{{System: "x"}}
	require.NoError(t, cfg.Validate())
	cfg.PoolDepth = 0
	if err := cfg.Validate(); err == nil {
		t.Error("pool depth 0 validates")
	}
}

// TestRealCampaignFixture checks the committed campaign fixture against
// the data pack: every case validates, every intent is covered, and every
// row of the filled grading sheet grades a case of the file.
func TestRealCampaignFixture(t *testing.T) {
	testenv.MustHaveData(t, "swe-qa/corpora/flask.jsonl.gz")
	testenv.MustHaveData(t, "swe-qa/corpora/requests.jsonl.gz")
	dir := filepath.Join("..", "fixtures", "campaign")
	ds, err := cases.Load(filepath.Join(dir, "cases.jsonl"), filepath.Join(dir, "repos.json"), cases.DefaultConfig())
	require.NoError(t, err)
	require.Empty(t, ds.Notes, "the data pack records the manifest's commits")
	intents := map[string]int{}
	ids := map[string]bool{}
	for _, tk := range ds.Tasks {
		intents[tk.Meta.Intent]++
		ids[tk.ID] = true
	}
	if len(ds.Tasks) < 40 {
		t.Errorf("%d cases, want at least 40", len(ds.Tasks))
	}
	for _, in := range cases.Intents() {
		if intents[in] == 0 {
			t.Errorf("no %s case", in)
		}
	}
	js, err := report.ReadSheet(filepath.Join(dir, "grades.csv"))
	require.NoError(t, err)
	require.NotEmpty(t, js)
	for _, j := range js {
		if !ids[j.Task] {
			t.Errorf("%s: grades unknown case %q", j.Source, j.Task)
		}
	}
}

// TestDatapackCommitDrift runs a campaign over a repository of a data
// pack laid out like SWE-QA whose recorded commit differs from the
// manifest's: the drift is a failure in the report, and the run goes on.
func TestDatapackCommitDrift(t *testing.T) {
	data := t.TempDir()
	t.Setenv(cases.EnvData, data)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	_, err := gz.Write([]byte(`{"path": "kv/store.py", "text": "class Store:\n    def delete(self, key):\n        \"\"\"Remove key from the store.\"\"\"\n        pass\n\n    def put(self, key, value):\n        pass\n"}` + "\n"))
	require.NoError(t, err)
	require.NoError(t, gz.Close())
	require.NoError(t, os.MkdirAll(filepath.Join(data, "swe-qa", "corpora"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(data, "swe-qa", "corpora", "kv.jsonl.gz"), buf.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(data, "swe-qa", "repo_commit.txt"), []byte("https://example.invalid/o/kv 1234567\n"), 0o644))
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.Repos = filepath.Join(dir, "repos.json")
	cfg.Cases = filepath.Join(dir, "cases.jsonl")
	require.NoError(t, os.WriteFile(cfg.Repos, []byte(`{"kv": {"datapack": "swe-qa/corpora/kv.jsonl.gz", "commit": "89abcdef"}}`), 0o644))
	require.NoError(t, os.WriteFile(cfg.Cases, []byte(`{"id": "kv-1", "repo": "kv", "intent": "symbol_lookup", "query": "remove a key", "relevant": [{"kind": "symbol", "id": "Store.delete", "grade": 3}]}`+"\n"), 0o644))
	cfg.CacheDir = t.TempDir()
	cfg.Specs = []systems.Spec{bm25Spec(t)}
	res, err := Run(t.Context(), cfg, t.TempDir())
	require.NoError(t, err)
	var drift []string
	for _, f := range res.Campaign.Failures {
		if f.Kind == campaignfmt.FailCommitDrift {
			drift = append(drift, f.Repo+": "+f.Message)
		}
	}
	if diff := cmp.Diff([]string{`kv: commit drift: kv corpus is at 1234567, manifest pins "89abcdef"`}, drift); diff != "" {
		t.Errorf("commit drift (-want +got):\n%s", diff)
	}
	require.Len(t, res.Campaign.Meta.Repos, 1)
	if r := res.Campaign.Meta.Repos[0]; r.Commit != "1234567" || r.Source != "datapack swe-qa/corpora/kv.jsonl.gz" {
		t.Errorf("repo info = %+v", r)
	}
	if got := res.Summary.Systems[0].Micro["hit@1"].Mean; got != 1 {
		t.Errorf("bm25 hit@1 = %v, want 1: the run goes on despite the drift", got)
	}
}

// ownProcesses is a stand-in for a system that runs processes of its own
// (an external peer): it reports their peak RSS.
type ownProcesses struct {
	firstDocs
	peak uint64
}

func (o *ownProcesses) PeakRSS() uint64 { return o.peak }

// TestPeakRSSOfOwnProcesses: a system that runs its own processes is
// charged their peak (the largest over its corpora), not the campaign
// process's, which is what an in-process system is charged.
func TestPeakRSSOfOwnProcesses(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cases = filepath.Join(fixture, "cases.jsonl")
	cfg.Repos = filepath.Join(fixture, "manifest.json")
	cfg.CacheDir = t.TempDir()
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	peaks := []uint64{7 << 20, 3 << 20} // one system per corpus of the fixture
	made := 0
	cfg.Specs = []systems.Spec{
		{System: "stub", Config: "first", Hash: "test-first", New: func(systems.Options) (systems.System, error) { return &firstDocs{}, nil }},
		{System: "stub", Config: "procs", Hash: "test-procs", New: func(systems.Options) (systems.System, error) {
			p := &ownProcesses{peak: peaks[made%len(peaks)]}
			made++
			return p, nil
		}},
	}
	res, err := Run(t.Context(), cfg, t.TempDir())
	require.NoError(t, err)
	got := map[string]float64{}
	for _, s := range res.Campaign.Systems {
		got[s.Name] = s.PeakRSSMB
	}
	require.Equal(t, 2, made, "the fixture has two repositories, one system each")
	if got["stub/procs"] != 7 {
		t.Errorf("stub/procs peak RSS = %.2f MiB, want its processes' largest, 7", got["stub/procs"])
	}
	if got["stub/first"] < 8 {
		t.Errorf("stub/first peak RSS = %.2f MiB, want the campaign process's own (a Go test binary is larger than 8 MiB)", got["stub/first"])
	}
}

// TestShardCostsOfAnotherRun: a sharded campaign given costs that record
// none of its cells (another run's: here a go test run's cell key) fails,
// naming the directory, instead of dealing round-robin while its sibling
// parts deal by cost; a directory without a part.json fails too.
func TestShardCostsOfAnotherRun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cases = filepath.Join(fixture, "cases.jsonl")
	cfg.Repos = filepath.Join(fixture, "manifest.json")
	cfg.CacheDir = t.TempDir()
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	cfg.Specs = []systems.Spec{bm25Spec(t)}
	sh, err := shard.Parse("1/2")
	require.NoError(t, err)

	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, PartFile), []byte(`{"cells": [{"system": "dense/bge-small-q", "repo": "flask", "seconds": 30}]}`), 0o644))
	costs, err := ReadCosts([]string{other})
	require.NoError(t, err)
	_, err = RunPart(t.Context(), cfg, sh, costs, t.TempDir())
	require.ErrorContains(t, err, other+" records the cost of 1 cells, none of this run's 2")

	_, err = ReadCosts([]string{t.TempDir()})
	require.ErrorContains(t, err, "no cell files (*.cell.json, from go test -results) and no part.json")

	// The same costs with one of this run's cells deal by them.
	require.NoError(t, os.WriteFile(filepath.Join(other, PartFile), []byte(`{"cells": [{"system": "bm25/code-weighted", "repo": "minikv", "seconds": 30}]}`), 0o644))
	costs, err = ReadCosts([]string{other})
	require.NoError(t, err)
	p, err := RunPart(t.Context(), cfg, sh, costs, t.TempDir())
	require.NoError(t, err)
	require.Len(t, p.Campaign.Cells, 2)
}
