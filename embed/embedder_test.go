package embed

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// mustHaveRuntime returns the cache root, or stops t (skip, or fail when
// required) when the ONNX Runtime library is absent.
func mustHaveRuntime(t testing.TB) string {
	t.Helper()
	cache := testenv.CacheDir()
	if _, err := LibraryPath(cache); err != nil {
		testenv.Missing(t, testenv.ONNX, err.Error())
	}
	return cache
}

// newEmbedder opens the manifest model id from the cache, or stops t when
// the runtime or the model is not fetched. A model present but corrupt fails.
func newEmbedder(t *testing.T, m models.Model) *Embedder {
	t.Helper()
	cache := mustHaveRuntime(t)
	if err := models.Verify(cache, m); err != nil {
		if errors.Is(err, models.ErrMissing) {
			testenv.Missing(t, testenv.Models, err.Error())
		}
		t.Fatal(err)
	}
	e, err := New(DefaultConfig(m, cache))
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	return e
}

// manifest returns the ONNX models of the manifest (the static ones are
// systems/static's).
func manifest(t *testing.T) []models.Model {
	t.Helper()
	all, err := models.Manifest()
	require.NoError(t, err)
	var ms []models.Model
	for _, m := range all {
		if m.IsONNX() {
			ms = append(ms, m)
		}
	}
	require.NotEmpty(t, ms, "the manifest lists no ONNX model")
	return ms
}

// sanityPairs are hand-written (query, gold code, unrelated code) triples in
// several languages; a working model ranks the gold above the unrelated code
// for every query. A broken one (wrong pooling, no mask, shuffled ids) does not.
var sanityPairs = []struct{ query, gold, unrelated string }{
	{"reverse a string",
		"def reverse(s):\n    return s[::-1]",
		"def connect(host, port):\n    sock = socket.create_connection((host, port))\n    return sock"},
	{"read a file line by line",
		"with open(path) as f:\n    for line in f:\n        process(line.rstrip('\\n'))",
		"func Max(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}"},
	{"compute the factorial of a number recursively",
		"def factorial(n):\n    if n <= 1:\n        return 1\n    return n * factorial(n - 1)",
		"SELECT name, email FROM users WHERE active = 1 ORDER BY name;"},
	{"send an HTTP GET request and return the response body",
		"func fetch(url string) ([]byte, error) {\n\tresp, err := http.Get(url)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tdefer resp.Body.Close()\n\treturn io.ReadAll(resp.Body)\n}",
		"def mean(xs):\n    return sum(xs) / len(xs)"},
	{"sort a list of users by age",
		"users.sort(key=lambda u: u.age)",
		"const canvas = document.getElementById('c');\nconst ctx = canvas.getContext('2d');\nctx.fillRect(0, 0, 10, 10);"},
	{"check whether a number is prime",
		"bool isPrime(int n) {\n  if (n < 2) return false;\n  for (int i = 2; i * i <= n; i++) if (n % i == 0) return false;\n  return true;\n}",
		"public String getName() {\n    return this.name;\n}"},
	{"parse a JSON string into an object",
		"const obj = JSON.parse(text);",
		"for i in range(10):\n    print(i * i)"},
	{"create a directory if it does not exist",
		"os.makedirs(path, exist_ok=True)",
		"def add(a, b):\n    return a + b"},
	{"count word frequencies in a text",
		"from collections import Counter\n\ndef word_counts(text):\n    return Counter(text.lower().split())",
		"func (s *Server) Shutdown(ctx context.Context) error {\n\treturn s.srv.Shutdown(ctx)\n}"},
	{"connect to a PostgreSQL database",
		"conn = psycopg2.connect(host='localhost', dbname='app', user='app', password=secret)",
		"fn fibonacci(n: u64) -> u64 {\n    if n < 2 { n } else { fibonacci(n - 1) + fibonacci(n - 2) }\n}"},
	{"compute the md5 hash of a file",
		"def md5sum(path):\n    h = hashlib.md5()\n    with open(path, 'rb') as f:\n        for chunk in iter(lambda: f.read(8192), b''):\n            h.update(chunk)\n    return h.hexdigest()",
		"button.addEventListener('click', () => { counter += 1; label.textContent = counter; });"},
	{"remove duplicates from a list while keeping order",
		"def unique(xs):\n    seen = set()\n    return [x for x in xs if not (x in seen or seen.add(x))]",
		"class Point:\n    def __init__(self, x, y):\n        self.x = x\n        self.y = y"},
}

// similarPair must score above 0.5 with every model: a paraphrase.
var similarPair = [2]string{
	"How do I read a text file line by line?",
	"Reading the lines of a text file one at a time.",
}

func TestSanity(t *testing.T) {
	for _, m := range manifest(t) {
		t.Run(m.ID, func(t *testing.T) {
			e := newEmbedder(t, m)
			ctx := t.Context()
			queries := make([]string, len(sanityPairs))
			code := make([]string, 0, 2*len(sanityPairs))
			for i, p := range sanityPairs {
				queries[i] = p.query
				code = append(code, p.gold, p.unrelated)
			}
			qv, err := e.EmbedQueries(ctx, queries)
			require.NoError(t, err)
			cv, err := e.EmbedPassages(ctx, code)
			require.NoError(t, err)
			for i, p := range sanityPairs {
				gold, other := Dot(qv[i], cv[2*i]), Dot(qv[i], cv[2*i+1])
				if gold <= other {
					t.Errorf("%q: cos(query, gold) = %.4f <= cos(query, unrelated) = %.4f", p.query, gold, other)
				}
			}
			sv, err := e.Embed(ctx, similarPair[:], "")
			require.NoError(t, err)
			if c := Dot(sv[0], sv[1]); c <= 0.5 {
				t.Errorf("similar pair %q: cosine %.4f, want > 0.5", similarPair, c)
			}
		})
	}
}

// TestBatchInvariance checks padding and masking: a text embedded alone and
// inside a batch padded to a much longer text must give the same vector with
// the default batch size — and, for models that are not dynamically
// quantized, with a real batch too.
func TestBatchInvariance(t *testing.T) {
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 40)
	texts := []string{"short text", long, "def f(x): return x + 1", ""}
	for _, m := range manifest(t) {
		t.Run(m.ID, func(t *testing.T) {
			e := newEmbedder(t, m)
			if want := strings.HasSuffix(m.ID, "-q"); e.Quantized() != want {
				t.Errorf("Quantized() = %v, want %v for %s", e.Quantized(), want, m.ID)
			}
			check := func(t *testing.T, e *Embedder) {
				together, err := e.Embed(t.Context(), texts, "")
				require.NoError(t, err)
				for i, s := range texts {
					alone, err := e.Embed(t.Context(), []string{s}, "")
					require.NoError(t, err)
					if c := Dot(alone[0], together[i]); c < 0.9999 {
						t.Errorf("batch size %d, text %d: cosine alone vs in batch %.6f, want >= 0.9999", e.BatchSize(), i, c)
					}
					if n := math.Sqrt(float64(Dot(together[i], together[i]))); math.Abs(n-1) > 1e-4 {
						t.Errorf("text %d: norm %.6f, want 1", i, n)
					}
				}
			}
			check(t, e)
			if !e.Quantized() {
				cfg := DefaultConfig(m, testenv.CacheDir())
				cfg.BatchSize = 8
				e8, err := New(cfg)
				require.NoError(t, err)
				defer e8.Close()
				check(t, e8)
			}
		})
	}
}

func TestStatsAndTruncation(t *testing.T) {
	m := manifest(t)[0]
	e := newEmbedder(t, m)
	long := strings.Repeat("word ", 3*m.MaxTokens)
	_, err := e.Embed(t.Context(), []string{"one", long, "two three"}, "")
	require.NoError(t, err)
	s := e.Stats()
	if s.Texts != 3 || s.Truncated != 1 {
		t.Errorf("Stats: %d texts, %d truncated; want 3 and 1", s.Texts, s.Truncated)
	}
	// [CLS] one [SEP], max tokens, [CLS] two three [SEP].
	if want := 3 + m.MaxTokens + 4; s.Tokens != want {
		t.Errorf("Stats.Tokens = %d, want %d", s.Tokens, want)
	}
	if s.ORT <= 0 || s.ORT > s.Total {
		t.Errorf("ORT time %v not within total %v", s.ORT, s.Total)
	}
	got, err := e.Embed(t.Context(), nil, "")
	require.NoError(t, err)
	if len(got) != 0 {
		t.Errorf("no texts gave %d vectors", len(got))
	}
}

func TestCanceled(t *testing.T) {
	e := newEmbedder(t, manifest(t)[0])
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := e.Embed(ctx, []string{"a"}, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed on a canceled context: %v, want context.Canceled", err)
	}
}

// TestCorruptModel: broken files fail with an error naming the file.
func TestCorruptModel(t *testing.T) {
	m := manifest(t)[0]
	e := newEmbedder(t, m) // skips unless the runtime and the model are here
	e.Close()
	cache := testenv.CacheDir()
	modelFile, tokFile := m.Path(cache, models.ModelFile), m.Path(cache, models.TokenizerFile)
	data, err := os.ReadFile(modelFile)
	require.NoError(t, err)
	dir := t.TempDir()
	truncated := filepath.Join(dir, "model.onnx")
	require.NoError(t, os.WriteFile(truncated, data[:len(data)/3], 0o644))
	bpe := filepath.Join(dir, "bpe-tokenizer.json")
	require.NoError(t, os.WriteFile(bpe, []byte(`{"version":"1.0","model":{"type":"BPE","dropout":0.1,"vocab":{"a":0},"merges":[]}}`), 0o644))

	tests := []struct {
		name        string
		model, tok  string
		wantInError []string
		reason      string
	}{
		{"truncated-onnx", truncated, tokFile, []string{truncated}, "a cut-off download must not load"},
		{"tokenizer-as-model", tokFile, tokFile, []string{tokFile}, "a JSON file is not a model"},
		{"missing-model", filepath.Join(dir, "nope.onnx"), tokFile, []string{"nope.onnx"}, "a missing file is named"},
		{"bpe-tokenizer", modelFile, bpe, []string{bpe, "BPE dropout"}, "a tokenizer the package cannot run is named, with the part it cannot run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig(m, cache)
			cfg.ModelFile, cfg.TokenizerFile = tt.model, tt.tok
			e, err := New(cfg)
			if err == nil {
				e.Close()
				t.Fatalf("%s: New succeeded", tt.reason)
			}
			t.Log(err)
			for _, s := range tt.wantInError {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%s: error %q does not name %q", tt.reason, err, s)
				}
			}
		})
	}

	// The same truncation inside a cache is caught by the sha256 check first.
	badCache := t.TempDir()
	require.NoError(t, os.MkdirAll(models.Dir(badCache, m), 0o755))
	require.NoError(t, os.WriteFile(m.Path(badCache, models.ModelFile), data[:len(data)/3], 0o644))
	tokData, err := os.ReadFile(tokFile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(m.Path(badCache, models.TokenizerFile), tokData, 0o644))
	_, err = New(DefaultConfig(m, badCache))
	if err == nil || !strings.Contains(err.Error(), m.Path(badCache, models.ModelFile)) || !errors.Is(err, models.ErrCorrupt) {
		t.Errorf("truncated cached model: error %v, want ErrCorrupt naming %s", err, m.Path(badCache, models.ModelFile))
	}
}

func TestLibraryPathMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	t.Setenv(EnvORTLib, missing)
	_, err := LibraryPath(t.TempDir())
	if !errors.Is(err, ErrNoRuntime) {
		t.Fatalf("LibraryPath with a missing library: %v, want ErrNoRuntime", err)
	}
	for _, s := range []string{EnvORTLib, "make setup", missing} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	good := models.Model{ID: "m", Dimension: 4, Pooling: PoolMean, MaxTokens: 16}
	tests := []struct {
		name   string
		edit   func(*Config)
		reason string
	}{
		{"no-model", func(c *Config) { c.Model = models.Model{} }, "a zero model is a caller bug"},
		{"dimension", func(c *Config) { c.Model.Dimension = 0 }, "vectors need a size"},
		{"pooling", func(c *Config) { c.Model.Pooling = "max" }, "only cls and mean are implemented"},
		{"max-tokens", func(c *Config) { c.Model.MaxTokens = 2 }, "room for [CLS] text [SEP] is needed"},
		{"batch", func(c *Config) { c.BatchSize = -1 }, "negative batch size"},
		{"half-override", func(c *Config) { c.ModelFile = "x.onnx" }, "overriding one file but not the other mixes models"},
	}
	if err := DefaultConfig(good, "").Validate(); err != nil {
		t.Fatalf("good config rejected: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig(good, "")
			tt.edit(&c)
			if c.Validate() == nil {
				t.Errorf("accepted: %s", tt.reason)
			}
		})
	}
}
