package main

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/goldenfmt"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems/builtin"
)

// TestCampaignSelection runs a campaign over fixtures/cases with two BM25
// configs, a built-in graph, a fusion of two BM25 configs, a fusion of BM25
// and an external system, and — when the default model is installed — a
// built-in hybrid and a graph over a fusion with a dense member: every
// system runs every case (real FTS5, real ONNX), in the order asked, and the
// built-in configs score what their go test cells' golden files say.
func TestCampaignSelection(t *testing.T) {
	fx := filepath.Join("..", "..", "fixtures", "cases")
	ext := filepath.Join(t.TempDir(), "readme.json")
	require.NoError(t, os.WriteFile(ext, []byte(`{
  "system": "readme", "config": "x", "transport": "command",
  "command": {"search": ["sh", "-c", "echo '{\"hits\": [{\"file\": \"README.md\"}]}'"]},
  "result": {"from": "json", "items": "hits", "path": "file"}
}`), 0o644))
	selection := "graph/bm25code-1hop,rrf(bm25/porter,bm25/unicode61,name=lexical),rrf(bm25/code-weighted," + ext + ",name=with-peer)"
	want := []string{"bm25/code-weighted", "bm25/porter", "graph/bm25code-1hop", "hybrid/lexical", "hybrid/with-peer"}
	cache := t.TempDir()
	dense, ok := builtin.Find(builtin.Specs(), "dense/minilm-l6-q")
	require.True(t, ok)
	if r := dense.Missing(testenv.CacheDir()); r != nil {
		if testenv.Required(r.Kind) {
			t.Fatalf("required %s missing: %s", r.Kind, r.Reason)
		}
		t.Logf("SKIP (part, %s missing): no dense members: %s", r.Kind, r.Reason)
	} else {
		cache = testenv.CacheDir()
		selection += ",hybrid/rrf-bm25code-minilm,graph(weighted(bm25/porter=0.3,dense/minilm-l6-q=0.7),seeds=5,name=deep)"
		want = append(want, "hybrid/rrf-bm25code-minilm", "graph/deep")
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
		"-bm25", "code-weighted,porter", "-models", "none", "-systems", selection,
		"-pool", "3", "-cache", cache, "-out", out, "-timestamp", "2026-01-01T00:00:00Z"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())

	b, err := os.ReadFile(filepath.Join(out, "run.json"))
	require.NoError(t, err)
	var rj campaignfmt.Campaign
	require.NoError(t, json.Unmarshal(b, &rj))
	var got []string
	for _, s := range rj.Systems {
		got = append(got, s.Name)
	}
	require.Equal(t, want, got, "-bm25's configs, then -systems', in the order given")
	require.Contains(t, rj.Meta.Backend, "(hybrid)")
	require.Contains(t, rj.Meta.Backend, "(graph)")
	var modelIDs []string
	for _, m := range rj.Meta.Models {
		modelIDs = append(modelIDs, m.ID)
		mm, err := models.Lookup(m.ID)
		require.NoError(t, err)
		require.Equal(t, campaignfmt.ModelInfo{ID: mm.ID, Dimension: mm.Dimension, Pooling: mm.Pooling, MaxTokens: mm.MaxTokens,
			QueryPrefix: mm.QueryPrefix, PassagePrefix: mm.PassagePrefix, Fingerprint: mm.Fingerprint()}, m, "run.json's description of %s", m.ID)
	}
	if len(want) > 5 {
		require.Equal(t, []string{"minilm-l6-q"}, modelIDs, "-models none, but the hybrid and graph embedded with minilm-l6-q: run.json lists it")
	} else {
		require.Empty(t, modelIDs)
	}

	b, err = os.ReadFile(filepath.Join(out, "quality-summary.json"))
	require.NoError(t, err)
	var qs struct {
		Systems []struct {
			Name, Status  string
			Cases, Failed int
			Micro         map[string]struct{ Mean float64 }
		}
	}
	require.NoError(t, json.Unmarshal(b, &qs))
	require.Len(t, qs.Systems, len(want))
	ndcg := map[string]float64{}
	for _, s := range qs.Systems {
		require.Equal(t, "ok", s.Status, s.Name)
		require.Equal(t, 10, s.Cases, s.Name)
		require.Zero(t, s.Failed, "%s failed cases", s.Name)
		ndcg[s.Name] = s.Micro["ndcg@10"].Mean
		f := filepath.Join(out, "results", "cases-cases.all."+strings.ReplaceAll(s.Name, "/", ".")+".jsonl")
		_, err := os.Stat(f)
		require.NoError(t, err, "the records of %s", s.Name)
	}
	// The deterministic built-in configs score what go test ./bench scores
	// on the same case file (golden/cases-cases/all).
	for _, name := range []string{"bm25/code-weighted", "bm25/porter", "graph/bm25code-1hop"} {
		sys, cfg, _ := strings.Cut(name, "/")
		g, err := goldenfmt.Read(goldenfmt.Path(filepath.Join("..", "..", "golden"), "cases-cases", "all", sys, cfg))
		require.NoError(t, err)
		require.InDelta(t, float64(g.Metrics["ndcg@10"].Mean), ndcg[name], 1e-4, "%s: campaign vs its golden file", name)
	}
}

// TestCampaignSelectionErrors: bad names fail as bad usage (exit 2) and
// list the valid ones.
func TestCampaignSelectionErrors(t *testing.T) {
	fx := filepath.Join("..", "..", "fixtures", "cases")
	base := []string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"), "-out", t.TempDir()}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"bm25", []string{"-bm25", "code-weighted,porterr"}, []string{`-bm25 "porterr": no such BM25 config`, "have unicode61, porter, code, code-weighted, all or none"}},
		{"model", []string{"-models", "gpt-9"}, []string{`unknown model "gpt-9"`, "minilm-l6-q", "all or none"}},
		{"system config", []string{"-systems", "hybrid/nope"}, []string{`no system "hybrid/nope"`, "hybrid has rrf-bm25code-minilm, rrf-bm25code-bge"}},
		{"system", []string{"-systems", "lucene/x"}, []string{"systems: bm25, dense, static, hybrid, graph"}},
		{"fusion", []string{"-systems", "rrf(bm25/porter,bm25/nope)"}, []string{"bm25 has unicode61"}},
		{"clash", []string{"-bm25", "porter", "-systems", "graph(bm25/porter,name=x),graph(bm25/code,name=x)"}, []string{"two different systems are named graph/x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(append(append([]string{}, base...), tc.args...), &stdout, &stderr)
			require.Error(t, err)
			require.Equal(t, 2, exitCode(err), "%v", err)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

// TestCampaignUsageForms: campaign -h documents every selection form, and
// its example is a selection the command takes.
func TestCampaignUsageForms(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"campaign", "-h"}, &stdout, &stderr))
	usage := stderr.String()
	require.Contains(t, usage, builtin.SelectionHelp)
	for _, form := range []string{"-models id,DIR,…|all|none", "-bm25 config,…|all|none", "-systems SELECTION", "model folders", "embedding endpoints"} {
		require.Contains(t, usage, form)
	}
	m := regexp.MustCompile(`For example: -systems '([^']+)'`).FindStringSubmatch(usage)
	require.NotNil(t, m, "the usage shows an example")
	specs, err := selector(&stderr).Select(m[1])
	require.NoError(t, err, m[1])
	require.Greater(t, len(specs), 5)
}

// TestCampaignDocSelections: every -systems selection of docs/campaigns.md
// that names no file is one the command takes.
func TestCampaignDocSelections(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "campaigns.md"))
	require.NoError(t, err)
	seen := 0
	for _, m := range regexp.MustCompile(`-systems '([^']+)'`).FindAllStringSubmatch(string(b), -1) {
		seen++
		_, err := selector(io.Discard).Select(m[1])
		require.NoError(t, err, "docs/campaigns.md: -systems '%s'", m[1])
	}
	// Every name and expression the section shows, each alone (user
	// models, files and the grammar's placeholders aside).
	text := string(b)
	text = text[strings.Index(text, "## Choosing systems"):]
	text = text[:strings.Index(text[3:], "\n## ")]
	defined := map[string]bool{} // what the example's name= calls its systems
	for _, m := range regexp.MustCompile(`name=([a-z0-9._-]+)`).FindAllStringSubmatch(text, -1) {
		defined["hybrid/"+m[1]], defined["graph/"+m[1]] = true, true
	}
	for _, m := range regexp.MustCompile("`((?:bm25|dense|static|hybrid|graph)/[a-z0-9._-]+|(?:rrf|weighted|graph)\\([^`]*\\))`").FindAllStringSubmatch(text, -1) {
		if strings.Contains(m[1], "M") || strings.Contains(m[1], "my-") || defined[m[1]] {
			continue
		}
		seen++
		_, err := selector(io.Discard).Select(m[1])
		require.NoError(t, err, "docs/campaigns.md: %s", m[1])
	}
	require.GreaterOrEqual(t, seen, 10)
}

// TestCampaignOwnModels: a user's own model runs in a campaign as a model
// folder (-models DIR, and as a member DIR of a fusion) and as an entry of
// a user manifest (dense/ID in -systems, a member of a fusion inside a
// graph). The folder holds the files of the built-in minilm-l3, so the
// folder, the manifest entry and the built-in score alike, and as the
// built-in's golden file says.
func TestCampaignOwnModels(t *testing.T) {
	cache := testenv.CacheDir()
	l3, ok := builtin.Find(builtin.Specs(), "dense/minilm-l3")
	require.True(t, ok)
	if r := l3.Missing(cache); r != nil {
		testenv.Missing(t, r.Kind, r.Reason)
	}
	t.Setenv(models.EnvManifest, "") // -model-manifest sets it for the process: restore it after
	dir := t.TempDir()
	folder := filepath.Join(dir, "my-l3")
	require.NoError(t, os.MkdirAll(filepath.Join(folder, "1_Pooling"), 0o755))
	for _, f := range []string{"model.onnx", "tokenizer.json"} {
		require.NoError(t, os.Symlink(filepath.Join(cache, "models", "minilm-l3", f), filepath.Join(folder, f)))
	}
	require.NoError(t, os.WriteFile(filepath.Join(folder, "1_Pooling", "config.json"), []byte(`{"word_embedding_dimension": 384, "pooling_mode_mean_tokens": true}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(folder, "sentence_bert_config.json"), []byte(`{"max_seq_length": 128}`), 0o644))
	manifest := filepath.Join(dir, "models.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"models": [{"dir": "my-l3", "id": "mine-l3"}]}`), 0o644))

	fx := filepath.Join("..", "..", "fixtures", "cases")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
		"-model-manifest", manifest, "-models", folder, "-bm25", "code-weighted",
		"-systems", "dense/mine-l3,rrf(bm25/code-weighted," + folder + ",name=folder-fusion),graph(rrf(bm25/porter,dense/mine-l3),name=mine),dense/minilm-l3",
		"-pool", "3", "-cache", cache, "-out", out, "-timestamp", "2026-01-01T00:00:00Z"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())

	b, err := os.ReadFile(filepath.Join(out, "quality-summary.json"))
	require.NoError(t, err)
	var qs struct {
		Systems []struct {
			Name, Status  string
			Cases, Failed int
			Micro         map[string]struct{ Mean float64 }
		}
	}
	require.NoError(t, json.Unmarshal(b, &qs))
	ndcg := map[string]float64{}
	var names []string
	for _, s := range qs.Systems {
		require.Equal(t, "ok", s.Status, s.Name)
		require.Equal(t, 10, s.Cases, s.Name)
		require.Zero(t, s.Failed, "%s failed cases", s.Name)
		ndcg[s.Name] = s.Micro["ndcg@10"].Mean
		names = append(names, s.Name)
	}
	require.ElementsMatch(t, []string{"bm25/code-weighted", "dense/my-l3", "dense/mine-l3", "hybrid/folder-fusion", "graph/mine", "dense/minilm-l3"}, names)
	g, err := goldenfmt.Read(goldenfmt.Path(filepath.Join("..", "..", "golden"), "cases-cases", "all", "dense", "minilm-l3"))
	require.NoError(t, err)
	for _, name := range []string{"dense/my-l3", "dense/mine-l3", "dense/minilm-l3"} {
		require.InDelta(t, float64(g.Metrics["ndcg@10"].Mean), ndcg[name], 1e-4, "%s: the same model files score as the built-in's golden file", name)
	}
}

// TestCampaignEndpointMember: an embedding endpoint of a user manifest runs
// alone (dense/ID) and as a fusion's member. The server is a stand-in
// whose vectors count hashed words; what is checked is that the campaign
// embeds through it and runs every case with both systems.
func TestCampaignEndpointMember(t *testing.T) {
	var texts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		texts.Add(int32(len(req.Input)))
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, s := range req.Input {
			v := make([]float32, 16)
			v[15] = 0.1
			for _, word := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
				h := fnv.New32a()
				h.Write([]byte(word))
				v[h.Sum32()%15]++
			}
			out.Data = append(out.Data, item{i, v})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	t.Setenv(models.EnvManifest, "") // -model-manifest sets it for the process: restore it after
	manifest := filepath.Join(t.TempDir(), "served.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"models": [{"id": "words-served", "kind": "endpoint", "licence": "none", "dimension": 16,
  "endpoint": {"base_url": "`+srv.URL+`/v1", "model": "words", "revision": "1"}}]}`), 0o644))

	fx := filepath.Join("..", "..", "fixtures", "cases")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
		"-model-manifest", manifest, "-systems", "dense/words-served,rrf(bm25/porter,dense/words-served,name=porter-served)",
		"-pool", "3", "-cache", t.TempDir(), "-out", out, "-timestamp", "2026-01-01T00:00:00Z"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	require.Contains(t, stdout.String(), "10 cases, 2 systems, 0 failures")
	require.Positive(t, texts.Load(), "the endpoint embedded the corpus and queries")
	b, err := os.ReadFile(filepath.Join(out, "quality-summary.json"))
	require.NoError(t, err)
	var qs struct {
		Systems []struct {
			Name, Status  string
			Cases, Failed int
		}
	}
	require.NoError(t, json.Unmarshal(b, &qs))
	var names []string
	for _, s := range qs.Systems {
		require.Equal(t, "ok", s.Status, s.Name)
		require.Equal(t, 10, s.Cases, s.Name)
		require.Zero(t, s.Failed, s.Name)
		names = append(names, s.Name)
	}
	require.ElementsMatch(t, []string{"dense/words-served", "hybrid/porter-served"}, names)
}
