package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/builtin"
)

// TestCampaignChunking: a campaign chunks a user's repository with
// chunk.RepoOptions plus the manifest's excludes, records the options in
// run.json, and says in the repository's note (run.json, quality-summary.md)
// what was excluded and cut and which gold no system can find.
// chunkingRepo writes a small Go repository with a long package doc
// comment, test data, vendored and scratch code, its manifest (excluding
// scratch/) and two cases, one of whose gold is in testdata/.
func chunkingRepo(t *testing.T) (casesFile, manifest string) {
	t.Helper()
	dir := t.TempDir()
	repo := filepath.Join(dir, "svc")
	write := func(rel, text string) {
		p := filepath.Join(repo, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	var doc strings.Builder
	for i := range chunk.DefaultMaxChunkLines + 50 {
		doc.WriteString("// The service retries every request.\n")
		if i%10 == 9 {
			doc.WriteString("//\n")
		}
	}
	write("main.go", doc.String()+"package main\n\nfunc main() { retry() }\n")
	write("retry.go", "package main\n\n// retry retries a request with backoff.\nfunc retry() {}\n")
	write("testdata/golden.json", `{"retry": "request backoff"}`+"\n")
	write("vendor/lib/lib.go", "package lib\n\n// Retry is vendored.\nfunc Retry() {}\n")
	write("scratch/notes.go", "package scratch\n\n// retry notes\nfunc Notes() {}\n")
	manifest = filepath.Join(dir, "repos.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"svc": {"path": "svc", "commit": "x", "exclude": ["scratch/"]}}`), 0o644))
	casesFile = filepath.Join(dir, "cases.jsonl")
	require.NoError(t, os.WriteFile(casesFile, []byte(
		`{"id": "c1", "repo": "svc", "intent": "symbol_lookup", "query": "where are requests retried with backoff", "relevant": [{"kind": "symbol", "id": "retry", "grade": 3}]}`+"\n"+
			`{"id": "c2", "repo": "svc", "intent": "task_lookup", "query": "the golden file of the retry test", "relevant": [{"kind": "file", "path": "testdata/golden.json", "grade": 2}]}`+"\n"), 0o644))

	return casesFile, manifest
}

func TestCampaignChunking(t *testing.T) {
	casesFile, manifest := chunkingRepo(t)
	cfg := DefaultConfig()
	cfg.Cases, cfg.Repos, cfg.CacheDir = casesFile, manifest, t.TempDir()
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	cfg.Specs = []systems.Spec{bm25Spec(t)}
	out := t.TempDir()
	res, err := Run(t.Context(), cfg, out)
	require.NoError(t, err)

	require.Equal(t, chunk.RepoOptions().Key(), res.Campaign.Meta.Chunking, "run.json records the options")
	require.Len(t, res.Campaign.Meta.Repos, 1)
	note := res.Campaign.Meta.Repos[0].Note
	t.Logf("repo note: %s", note)
	for _, want := range []string{"excluded 3 files", "testdata/ 1", "vendor/ 1", "scratch/ 1", "cut into", "task c2: gold file testdata/golden.json is excluded"} {
		require.Contains(t, note, want, "the repository's note")
	}
	for _, r := range res.Records {
		for _, h := range r.Hits {
			for _, bad := range []string{"testdata/", "vendor/", "scratch/"} {
				require.NotContains(t, h.DocID, bad, "an excluded file was indexed")
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "quality-summary.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "excluded 3 files", "quality-summary.md shows the note")
	require.Contains(t, string(md), "- chunking: "+chunk.RepoOptions().Key())
}

// TestRepoOptionsKeepFixtureCells: on fixtures/cases (the catalogue's
// cases/fixture, which a campaign over the same files must agree with) the
// repository defaults change no chunk, so a campaign and the go test cell
// index the same corpora.
func TestRepoOptionsKeepFixtureCells(t *testing.T) {
	ds, err := cases.Load(filepath.Join(fixture, "cases.jsonl"), filepath.Join(fixture, "manifest.json"), cases.DefaultConfig())
	require.NoError(t, err)
	cat, err := harness.Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	repo, err := harness.Prepare(ds, chunk.RepoOptions())
	require.NoError(t, err)
	require.Len(t, repo.Corpora, 2)
	for id, c := range repo.Corpora {
		require.Equal(t, cat.Corpora[id].Hash(), c.Hash(), "corpus %s", id)
	}
	require.Empty(t, repo.Notes)
}

// TestCampaignTruncationWarning: a real embedding model's truncation count
// reaches run.json (the system's warnings) and quality-summary.md's Warnings.
func TestCampaignTruncationWarning(t *testing.T) {
	spec, ok := builtin.Find(builtin.Specs(), "dense/minilm-l6-q")
	require.True(t, ok)
	cache := testenv.CacheDir()
	if r := spec.Missing(cache); r != nil {
		testenv.Missing(t, r.Kind, r.Reason)
	}
	casesFile, manifest := chunkingRepo(t)
	cfg := DefaultConfig()
	cfg.Cases, cfg.Repos, cfg.CacheDir, cfg.NoCache = casesFile, manifest, cache, true
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	cfg.Specs = []systems.Spec{spec}
	out := t.TempDir()
	res, err := Run(t.Context(), cfg, out)
	require.NoError(t, err)
	require.Len(t, res.Campaign.Systems, 1)
	// The package doc's parts are 100 lines of 38 bytes: far over 256 tokens.
	want := "dense[minilm-l6-q]: svc: 2 of 5 docs truncated at the model's 256 tokens"
	require.Len(t, res.Campaign.Systems[0].Warnings, 1)
	require.Contains(t, res.Campaign.Systems[0].Warnings[0], want)
	md, err := os.ReadFile(filepath.Join(out, "quality-summary.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), want)
}
