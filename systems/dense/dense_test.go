package dense

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
)

func TestConfigs(t *testing.T) {
	all, err := models.Manifest()
	require.NoError(t, err)
	var ms []models.Model
	for _, m := range all {
		if m.IsONNX() {
			ms = append(ms, m)
		}
	}
	cs := Configs()
	require.Len(t, cs, len(ms), "one config per ONNX manifest model")
	require.Less(t, len(ms), len(all), "the static model has no dense config")
	if err := (Config{Name: "s", Model: "static-tokenlearn"}).Validate(); err == nil || !strings.Contains(err.Error(), "systems/static") {
		t.Errorf("a dense config of the static model: %v, want an error naming systems/static", err)
	}
	hashes := map[string]string{}
	for i, c := range cs {
		if c.Name != ms[i].ID || c.Model != ms[i].ID {
			t.Errorf("config %d = %+v, want name and model %s", i, c, ms[i].ID)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		if prev, ok := hashes[c.Hash()]; ok {
			t.Errorf("%s and %s share a hash", prev, c.Name)
		}
		hashes[c.Hash()] = c.Name
		if d := Spec(c).Dimension; d != ms[i].Dimension {
			t.Errorf("%s: Spec.Dimension %d, want the manifest's %d", c.Name, d, ms[i].Dimension)
		}
		got, err := ConfigByName(c.Name)
		if err != nil || got != c {
			t.Errorf("ConfigByName(%q) = %+v, %v", c.Name, got, err)
		}
	}
	if _, err := ConfigByName("nope"); err == nil || !strings.Contains(err.Error(), cs[0].Name) {
		t.Errorf("ConfigByName(nope): %v, want an error listing the known names", err)
	}
	// Only the 768-d model is held to a corpus budget, and one the fixtures,
	// CodeRAG, the seed sets and the campaign case file fit in (≤ 3,000
	// chunks) but CoSQA (6,267 docs) does not.
	for _, c := range cs {
		s := Spec(c)
		if c.Model == "mpnet-base-q" {
			if s.Bench.MaxDocs < 2000 || s.Bench.MaxDocs >= 6267 || s.Bench.MaxDocsReason == "" {
				t.Errorf("%s: MaxDocs %d (%q), want a budget in [2000, 6267) with a reason", c.Name, s.Bench.MaxDocs, s.Bench.MaxDocsReason)
			}
		} else if s.Bench.MaxDocs != 0 {
			t.Errorf("%s: MaxDocs %d, want none (only the 768-d model is that slow)", c.Name, s.Bench.MaxDocs)
		}
	}
	c := cs[0]
	c2 := c
	c2.BatchSize = 8
	if c.Hash() == c2.Hash() {
		t.Error("batch size does not change the hash, but it changes quantized vectors")
	}
	// The hashes the committed golden files record
	// (golden/*/*/dense/*.json): a change to the hash or to a manifest
	// entry makes every dense baseline stale, so it must be deliberate.
	for name, want := range map[string]string{
		"minilm-l6-q": "c6182b81fd3ccfa8fc4b0cc9262362092e3e71c3cc40d3effa062bbd0a02c049",
		"bge-small-q": "2bf9d93714f0c0e08931af9c8d47f2d7677d68e4b4aa72b221a274552c743843",
		"e5-small-q":  "a2439a1c9b48b9323230339c07d3fce608d836c3e5430d0afdbd5650fd784363",
		"minilm-l6":   "0d84838f5d0443d9adaf7e5a64d8465f036fc6cfbff5639bf2da5a0ad4037af6",
	} {
		c, err := ConfigByName(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := c.Hash(); got != want {
			t.Errorf("%s: Hash = %s, want the golden files' %s", name, got, want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	model := Configs()[0].Model
	tests := []struct {
		name   string
		cfg    Config
		reason string
	}{
		{"empty-name", Config{Model: model}, "the name labels subtests and golden files"},
		{"bad-name", Config{Name: "A B", Model: model}, "upper case and spaces do not fit file names"},
		{"unknown-model", Config{Name: "x", Model: "no-such-model"}, "the model must be in the manifest"},
		{"negative-batch", Config{Name: "x", Model: model, BatchSize: -1}, "a batch has at least one text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); err == nil {
				t.Errorf("accepted: %s", tt.reason)
			}
		})
	}
	if _, err := New(Configs()[0], systems.Options{}); err == nil {
		t.Error("New accepted an empty CacheDir")
	}
}

func TestDocText(t *testing.T) {
	tests := []struct {
		name   string
		doc    corpus.Doc
		want   string
		reason string
	}{
		{"chunk", corpus.Doc{Symbol: "Parser.parse", Path: "src/p.py", Text: "def parse(self): ..."}, "Parser.parse\nsrc/p.py\ndef parse(self): ...", "names first, then the body"},
		{"file", corpus.Doc{Path: "README.md", Text: "hello"}, "README.md\nhello", "no blank line for a missing symbol"},
		{"titled", corpus.Doc{Title: "Intro", Text: "body"}, "Intro\nbody", "BEIR-style docs keep their title"},
		{"bare", corpus.Doc{Text: "only text"}, "only text", "prose docs are their text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, DocText(&tt.doc)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

// testCorpus is a handful of functions with one clear answer per query.
func testCorpus() *corpus.Corpus {
	return &corpus.Corpus{ID: "hand/made", Docs: []corpus.Doc{
		{ID: "a", Path: "text/strings.py", Symbol: "reverse", Text: "def reverse(s):\n    return s[::-1]"},
		{ID: "b", Path: "net/client.go", Symbol: "Fetch", Text: "func Fetch(url string) ([]byte, error) {\n\tresp, err := http.Get(url)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tdefer resp.Body.Close()\n\treturn io.ReadAll(resp.Body)\n}"},
		{ID: "c", Path: "math/prime.c", Symbol: "is_prime", Text: "int is_prime(int n) {\n  if (n < 2) return 0;\n  for (int i = 2; i * i <= n; i++) if (n % i == 0) return 0;\n  return 1;\n}"},
		{ID: "d", Path: "fs/mkdir.py", Symbol: "ensure_dir", Text: "def ensure_dir(path):\n    os.makedirs(path, exist_ok=True)"},
		{ID: "e", Path: "db/conn.py", Symbol: "connect", Text: "def connect():\n    return psycopg2.connect(host='localhost', dbname='app')"},
	}}
}

var testQueries = []struct{ query, gold string }{
	{"reverse a string", "a"},
	{"download a URL over HTTP", "b"},
	{"test whether a number is prime", "c"},
	{"create a directory if missing", "d"},
	{"open a PostgreSQL database connection", "e"},
}

func mustHave(t testing.TB, cfg Config) string {
	t.Helper()
	cache := testenv.CacheDir()
	if r := Requires(cfg, cache); r != nil {
		testenv.Missing(t, r.Kind, r.Reason)
	}
	return cache
}

func TestIndexSearch(t *testing.T) {
	// Groups of 2 docs, so 5 docs take three embed-and-store rounds.
	defer func(old int) { storeEvery = old }(storeEvery)
	storeEvery = 2
	for _, cfg := range Configs() {
		t.Run(cfg.Name, func(t *testing.T) {
			cache := mustHave(t, cfg)
			// The store goes to a fresh root; the models stay in the real cache.
			root := t.TempDir()
			linkModels(t, cache, root)

			x, err := New(cfg, systems.Options{CacheDir: root, Logf: t.Logf})
			require.NoError(t, err)
			defer x.Close()
			if _, err := x.Search(t.Context(), "q", 1); err == nil {
				t.Error("Search before Index succeeded")
			}
			c := testCorpus()
			require.NoError(t, x.Index(t.Context(), c))
			if s := x.Stats(); s.Embedded != len(c.Docs) || s.Reused != 0 {
				t.Errorf("cold index: %+v, want all %d docs embedded", s, len(c.Docs))
			}
			// A real query vector is as long as the manifest says
			// (systems.VectorDimer, which a campaign checks).
			m, err := models.Lookup(cfg.Model)
			require.NoError(t, err)
			if dim, ok, err := systems.VectorDimOf(t.Context(), x); !ok || err != nil || dim != m.Dimension {
				t.Errorf("VectorDimOf = %d, %v, %v; want the manifest's %d", dim, ok, err, m.Dimension)
			}
			first := searchAll(t, x)
			for i, q := range testQueries {
				if first[i][0].DocID != q.gold {
					t.Errorf("%q: top hit %s, want %s (hits %v)", q.query, first[i][0].DocID, q.gold, first[i])
				}
				if len(first[i]) != 3 {
					t.Errorf("%q: %d hits, want k=3", q.query, len(first[i]))
				}
			}

			// Warm: a new Index over the same store embeds nothing and ranks the same.
			y, err := New(cfg, systems.Options{CacheDir: root})
			require.NoError(t, err)
			defer y.Close()
			require.NoError(t, y.Index(t.Context(), c))
			if s := y.Stats(); s.Embedded != 0 || s.Reused != len(c.Docs) {
				t.Errorf("warm index: %+v, want every doc from the store", s)
			}
			if diff := cmp.Diff(first, searchAll(t, y)); diff != "" {
				t.Errorf("warm hits differ from cold (-cold +warm):\n%s", diff)
			}

			// One changed doc is the only one embedded again.
			c.Docs[2].Text += "\n// checked"
			require.NoError(t, y.Index(t.Context(), c))
			if s := y.Stats(); s.Embedded != 1 || s.Reused != len(c.Docs)-1 {
				t.Errorf("after changing one doc: %+v, want 1 embedded", s)
			}

			// NoCache neither reads nor writes the store.
			z, err := New(cfg, systems.Options{CacheDir: root, NoCache: true})
			require.NoError(t, err)
			defer z.Close()
			require.NoError(t, z.Index(t.Context(), c))
			if s := z.Stats(); s.Embedded != len(c.Docs) || s.StorePath != "" {
				t.Errorf("NoCache: %+v, want every doc embedded and no store", s)
			}

			dup := testCorpus()
			dup.Docs[1].ID = dup.Docs[0].ID
			if err := z.Index(t.Context(), dup); err == nil || !strings.Contains(err.Error(), "duplicate") {
				t.Errorf("duplicate ids: %v, want an error", err)
			}
		})
	}
}

func searchAll(t *testing.T, x *Index) [][]systems.Hit {
	t.Helper()
	var out [][]systems.Hit
	for _, q := range testQueries {
		hits, err := x.Search(t.Context(), q.query, 3)
		require.NoError(t, err)
		out = append(out, hits)
	}
	return out
}

// linkModels makes root look like a cache holding the models and runtime
// of cache, so a test can own its vector store without copying model files.
func linkModels(t testing.TB, cache, root string) {
	t.Helper()
	for _, sub := range []string{"models", "onnxruntime"} {
		src := filepath.Join(cache, sub)
		if _, err := os.Stat(src); err != nil {
			continue
		}
		require.NoError(t, os.Symlink(src, filepath.Join(root, sub)))
	}
	if os.Getenv("RETRIEVALBENCH_ORT_LIB") == "" {
		if _, err := os.Stat(models.ORTPath(root)); err != nil {
			t.Fatalf("ONNX Runtime not reachable from the test cache: %v", err)
		}
	}
}

// TestTruncationWarning: a corpus with docs longer than the model's max
// tokens gets a warning saying how many (systems.Warner → cells, records,
// reports), handed out once, and the same count when every vector comes
// from the store.
func TestTruncationWarning(t *testing.T) {
	cfg, ok := configNamed("minilm-l6-q")
	require.True(t, ok, "no minilm-l6-q config")
	cache := mustHave(t, cfg)
	root := t.TempDir()
	linkModels(t, cache, root)
	long := strings.Repeat("func retry(request) { backoff(request) } ", 120) // far over 256 tokens
	c := &corpus.Corpus{ID: "trunc", Docs: []corpus.Doc{
		{ID: "a", Text: long}, {ID: "b", Text: "def short(): pass"}, {ID: "c", Text: long + " more"},
	}}
	want := []string{"dense[minilm-l6-q]: trunc: 2 of 3 docs truncated at the model's 256 tokens (the rest of their text is not embedded)"}
	for _, run := range []string{"cold", "warm"} {
		x, err := New(cfg, systems.Options{CacheDir: root})
		require.NoError(t, err)
		require.NoError(t, x.Index(t.Context(), c))
		if run == "warm" {
			require.Equal(t, len(c.Docs), x.Stats().Reused, "precondition: every vector from the store")
		}
		require.Equal(t, want, systems.WarningsOf(x), run)
		require.Empty(t, systems.WarningsOf(x), "%s: a warning is handed out once", run)
		require.Equal(t, 2, x.Stats().Truncated, run)
		require.NoError(t, x.Close())
	}
}

func configNamed(name string) (Config, bool) {
	for _, c := range Configs() {
		if c.Name == name {
			return c, true
		}
	}
	return Config{}, false
}
