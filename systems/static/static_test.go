package static

import (
	"encoding/json"
	"errors"
	"math"
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
	"github.com/retrievalbench/retrievalbench/systems/internal/sysconfig"
)

func TestConfigs(t *testing.T) {
	var names []string
	for _, c := range Configs() {
		names = append(names, c.Name)
		require.NoError(t, c.Validate(), c.Name)
		got, err := ConfigByName(c.Name)
		require.NoError(t, err)
		require.Equal(t, c, got)
	}
	if diff := cmp.Diff([]string{"static-tokenlearn"}, names); diff != "" {
		t.Errorf("one config per static manifest model (-want +got):\n%s", diff)
	}
	_, err := ConfigByName("nope")
	require.ErrorContains(t, err, `static: unknown config "nope" (known: static-tokenlearn)`)

	for _, tt := range []struct {
		cfg    Config
		want   string
		reason string
	}{
		{Config{Model: "static-tokenlearn"}, "empty name", "the name labels subtests and golden files"},
		{Config{Name: "x", Model: "nope"}, "unknown model", "the model must be in the manifest"},
		{Config{Name: "x", Model: "minilm-l6-q"}, "not a static model", "ONNX models are systems/dense's"},
		{Config{Name: "x", Model: "static-tokenlearn", MaxTokens: -1}, "max tokens -1", "a cap is positive or 0 (the manifest's)"},
	} {
		err := tt.cfg.Validate()
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: Validate = %v, want %q (%s)", tt.cfg, err, tt.want, tt.reason)
		}
	}
	_, err = New(Configs()[0], systems.Options{})
	require.ErrorContains(t, err, "CacheDir is empty")
}

// TestHash pins the hash of the shipped config (golden files are keyed by it)
// and checks that every field changes it.
func TestHash(t *testing.T) {
	base := Configs()[0]
	m, err := models.Lookup(base.Model)
	require.NoError(t, err)
	// The fields written out by hand, in the documented order.
	want := sysconfig.Hash("static-v1", "static-tokenlearn", "static-tokenlearn", "0",
		"static", "64", "mean", "512", "", "",
		"model.safetensors", "6be5d2830b76c27312e7870df0f7d3c55803fbc6817dfaee0783de319d457c6c",
		"tokenizer.json", "50ae6ca68a1b0491bf13b123fdf74aad127fd7b8cf9af56ca763b9df20f29bc5")
	require.Equal(t, want, base.Hash(), "the hash of %s changed: every golden file of it turns stale", base.Name)
	require.Equal(t, "static", m.Kind)
	for _, tt := range []struct {
		field string
		edit  func(*Config)
	}{
		{"Name", func(c *Config) { c.Name = "other" }},
		{"Model", func(c *Config) { c.Model = "minilm-l6-q" }},
		{"MaxTokens", func(c *Config) { c.MaxTokens = 256 }},
	} {
		c := base
		tt.edit(&c)
		if c.Hash() == base.Hash() {
			t.Errorf("changing %s leaves the hash unchanged", tt.field)
		}
	}
}

func mustHave(t testing.TB, cfg Config) string {
	t.Helper()
	cache := testenv.CacheDir()
	if r := Requires(cfg, cache); r != nil {
		testenv.Missing(t, r.Kind, r.Reason)
	}
	return cache
}

// parityFile is what embed/testdata/parity/make_parity.py writes for a
// static model: ids from Hugging Face tokenizers (no special tokens) and the
// vector of the model's own Python package (tokenlearn-static-model).
type parityFile struct {
	Model       string `json:"model"`
	ModelSHA256 string `json:"model_sha256"`
	Generator   string `json:"generator"`
	Cases       []struct {
		Name      string    `json:"name"`
		Text      string    `json:"text"`
		IDs       []int64   `json:"ids"`
		Truncated bool      `json:"truncated"`
		Embedding []float64 `json:"embedding"`
	} `json:"cases"`
}

// TestParityWithPackage compares the Go vectors with the Python package's on
// the parity texts: identical ids and cosine >= 0.9999 (both zero for texts
// without tokens).
func TestParityWithPackage(t *testing.T) {
	for _, cfg := range Configs() {
		t.Run(cfg.Name, func(t *testing.T) {
			cache := mustHave(t, cfg)
			m, err := models.Lookup(cfg.Model)
			require.NoError(t, err)
			path := filepath.Join("..", "..", "embed", "testdata", "parity", m.ID+".json")
			data, err := os.ReadFile(path)
			require.NoError(t, err, "every static model needs parity data: run make_parity.py")
			var pf parityFile
			require.NoError(t, json.Unmarshal(data, &pf), path)
			wf, _ := m.File(models.StaticFile)
			require.Equal(t, wf.SHA256, pf.ModelSHA256, "%s was made from another model file", path)
			require.GreaterOrEqual(t, len(pf.Cases), 30, path)

			x, err := Load(m, cache, 0)
			require.NoError(t, err)
			zero := 0
			for _, c := range pf.Cases {
				ids, truncated := x.IDs(c.Text)
				if diff := cmp.Diff(c.IDs, ids); diff != "" {
					t.Errorf("%s: ids differ from %s (-want +got):\n%s", c.Name, pf.Generator, diff)
				}
				require.Equal(t, c.Truncated, truncated, c.Name)
				got, _ := x.Embed(c.Text)
				require.Len(t, got, m.Dimension)
				var dot, nw, ng float64
				for i := range got {
					dot += c.Embedding[i] * float64(got[i])
					nw += c.Embedding[i] * c.Embedding[i]
					ng += float64(got[i]) * float64(got[i])
				}
				if nw == 0 {
					zero++
					if ng != 0 {
						t.Errorf("%s: the package gives a zero vector, Go one of norm %g", c.Name, math.Sqrt(ng))
					}
					continue
				}
				if cos := dot / math.Sqrt(nw*ng); cos < 0.9999 {
					t.Errorf("%s: cosine with the package's vector %.6f, want >= 0.9999", c.Name, cos)
				}
			}
			require.Less(t, zero, 3, "only the empty texts have no tokens")
		})
	}
}

// testCorpus is a handful of functions with one clear answer per query.
func testCorpus() *corpus.Corpus {
	return &corpus.Corpus{ID: "hand/made", Docs: []corpus.Doc{
		{ID: "a", Path: "text/strings.py", Symbol: "reverse_string", Text: "def reverse_string(s):\n    \"\"\"Reverse the characters of a string.\"\"\"\n    return s[::-1]"},
		{ID: "b", Path: "net/client.go", Symbol: "DownloadURL", Text: "// DownloadURL downloads the web page at url over HTTP.\nfunc DownloadURL(url string) ([]byte, error) {\n\tresp, err := http.Get(url)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tdefer resp.Body.Close()\n\treturn io.ReadAll(resp.Body)\n}"},
		{ID: "c", Path: "math/prime.c", Symbol: "is_prime", Text: "/* is_prime: test whether the number n is a prime number */\nint is_prime(int n) {\n  if (n < 2) return 0;\n  for (int i = 2; i * i <= n; i++) if (n % i == 0) return 0;\n  return 1;\n}"},
		{ID: "d", Path: "fs/mkdir.py", Symbol: "create_directory", Text: "def create_directory(path):\n    \"\"\"Create a folder (directory) and its parents.\"\"\"\n    os.makedirs(path, exist_ok=True)"},
		{ID: "e", Path: "db/conn.py", Symbol: "connect_database", Text: "def connect_database():\n    \"\"\"Open a connection to the PostgreSQL database.\"\"\"\n    return psycopg2.connect(host='localhost', dbname='app')"},
	}}
}

var testQueries = []struct{ query, gold string }{
	{"reverse a string", "a"},
	{"download a web page over http", "b"},
	{"check if a number is prime", "c"},
	{"create a directory", "d"},
	{"connect to the postgres database", "e"},
}

func TestIndexSearch(t *testing.T) {
	for _, cfg := range Configs() {
		t.Run(cfg.Name, func(t *testing.T) {
			cache := mustHave(t, cfg)
			x, err := New(cfg, systems.Options{CacheDir: cache, Logf: t.Logf})
			require.NoError(t, err)
			defer x.Close()
			_, err = x.Search(t.Context(), "q", 1)
			require.ErrorContains(t, err, "Search before Index")

			c := testCorpus()
			require.NoError(t, x.Index(t.Context(), c))
			dim, err := x.VectorDim(t.Context())
			require.NoError(t, err)
			require.Equal(t, 64, dim, "the manifest's dimension")
			require.Equal(t, IndexStats{Docs: 5}, IndexStats{Docs: x.Stats().Docs, Truncated: x.Stats().Truncated, Empty: x.Stats().Empty})
			var first [][]systems.Hit
			for _, q := range testQueries {
				hits, err := x.Search(t.Context(), q.query, 3)
				require.NoError(t, err)
				require.Len(t, hits, 3)
				if hits[0].DocID != q.gold {
					t.Errorf("%q: top hit %s, want %s (hits %v)", q.query, hits[0].DocID, q.gold, hits)
				}
				for i := 1; i < len(hits); i++ {
					if hits[i].Score > hits[i-1].Score {
						t.Errorf("%q: hits not in score order: %v", q.query, hits)
					}
				}
				first = append(first, hits)
			}

			// Indexing again (another Index, same corpus) ranks the same:
			// vectors depend on the text alone, not on the goroutine split.
			y, err := New(cfg, systems.Options{CacheDir: cache})
			require.NoError(t, err)
			c2 := testCorpus()
			c2.Docs = append(c2.Docs, corpus.Doc{ID: "f", Text: ""}) // no tokens: a zero vector
			require.NoError(t, y.Index(t.Context(), c2))
			require.Equal(t, 1, y.Stats().Empty)
			for i, q := range testQueries {
				hits, err := y.Search(t.Context(), q.query, 3)
				require.NoError(t, err)
				if diff := cmp.Diff(first[i], hits); diff != "" {
					t.Errorf("%q: hits differ on re-index (-first +second):\n%s", q.query, diff)
				}
			}

			dup := testCorpus()
			dup.Docs[1].ID = dup.Docs[0].ID
			err = y.Index(t.Context(), dup)
			require.ErrorContains(t, err, "duplicate doc id")
		})
	}
}

// TestLoadRejectsMismatchedFiles loads the tokenizer with weights of another
// shape: the error names the file and the mismatch.
func TestLoadRejectsMismatchedFiles(t *testing.T) {
	cfg := Configs()[0]
	cache := mustHave(t, cfg)
	m, err := models.Lookup(cfg.Model)
	require.NoError(t, err)
	m.Dimension = 32
	_, err = load(m, m.Path(cache, models.StaticFile), m.Path(cache, models.TokenizerFile), 0)
	require.ErrorContains(t, err, "embeddings have shape [10000 64], want [rows, 32]")
	require.ErrorContains(t, err, "model.safetensors")
}

// TestTruncationWarning: docs longer than the config's max tokens are
// counted in a warning (systems.Warner), handed out once.
func TestTruncationWarning(t *testing.T) {
	cfg := Configs()[0]
	cfg.MaxTokens = 8
	cache := mustHave(t, cfg)
	x, err := New(cfg, systems.Options{CacheDir: cache})
	require.NoError(t, err)
	defer x.Close()
	c := &corpus.Corpus{ID: "trunc", Docs: []corpus.Doc{
		{ID: "a", Text: strings.Repeat("retry the request with backoff ", 10)}, {ID: "b", Text: "retry"},
	}}
	require.NoError(t, x.Index(t.Context(), c))
	require.Equal(t, []string{"static[" + cfg.Name + "]: trunc: 1 of 2 docs truncated at 8 tokens (the rest of their text is not embedded)"}, systems.WarningsOf(x))
	require.Empty(t, systems.WarningsOf(x))
}
