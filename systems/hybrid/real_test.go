package hybrid

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
)

func realCorpus() *corpus.Corpus {
	docs := []corpus.Doc{
		{ID: "strings.py#reverse", Path: "strings.py", Symbol: "reverse", Kind: "function", Language: "python",
			Text: "def reverse(s):\n    \"\"\"Return s backwards.\"\"\"\n    return s[::-1]\n"},
		{ID: "net.py#fetch_url", Path: "net.py", Symbol: "fetch_url", Kind: "function", Language: "python",
			Text: "def fetch_url(url):\n    \"\"\"Download the body of url over HTTP.\"\"\"\n    return urllib.request.urlopen(url).read()\n"},
		{ID: "math.py#is_prime", Path: "math.py", Symbol: "is_prime", Kind: "function", Language: "python",
			Text: "def is_prime(n):\n    if n < 2:\n        return False\n    return all(n % d for d in range(2, int(n ** 0.5) + 1))\n"},
		{ID: "fs.py#ensure_dir", Path: "fs.py", Symbol: "ensure_dir", Kind: "function", Language: "python",
			Text: "def ensure_dir(path):\n    os.makedirs(path, exist_ok=True)\n"},
		{ID: "db.py#connect", Path: "db.py", Symbol: "connect", Kind: "function", Language: "python",
			Text: "def connect(dsn):\n    \"\"\"Open a PostgreSQL connection.\"\"\"\n    return psycopg2.connect(dsn)\n"},
	}
	return &corpus.Corpus{ID: "tiny", Docs: docs}
}

// TestRealFusion fuses real BM25 (SQLite FTS5) and dense (ONNX Runtime)
// members and checks the fused list against fusion of the members' own
// lists, computed here from separately built systems.
func TestRealFusion(t *testing.T) {
	cache := testenv.CacheDir()
	for _, name := range []string{"rrf-bm25code-minilm", "weighted-bm25code-minilm"} {
		t.Run(name, func(t *testing.T) {
			cfg, err := ConfigByName(name)
			require.NoError(t, err)
			if r := Requires(cfg, cache); r != nil {
				testenv.Missing(t, r.Kind, r.Reason)
			}
			opt := systems.Options{CacheDir: cache, Logf: t.Logf}
			c := realCorpus()
			x, err := New(cfg, opt)
			require.NoError(t, err)
			defer x.Close()
			require.NoError(t, x.Index(t.Context(), c))

			var members []systems.System
			for _, m := range cfg.Members {
				s, err := m.Spec.New(opt)
				require.NoError(t, err)
				defer s.Close()
				require.NoError(t, s.Index(t.Context(), c))
				members = append(members, s)
			}
			weights := []float64{cfg.Members[0].Weight, cfg.Members[1].Weight}
			for _, q := range []struct{ query, gold string }{
				{"reverse a string", "strings.py#reverse"},
				{"download a web page over HTTP", "net.py#fetch_url"},
				{"check whether a number is prime", "math.py#is_prime"},
				{"ensure a directory path exists", "fs.py#ensure_dir"},
				{"open a postgres database connection", "db.py#connect"},
			} {
				got, err := x.Search(t.Context(), q.query, 3)
				require.NoError(t, err)
				var lists [][]systems.Hit
				for _, s := range members {
					l, err := s.Search(t.Context(), q.query, cfg.Depth)
					require.NoError(t, err)
					lists = append(lists, l)
				}
				var want []systems.Hit
				if cfg.Method == MethodRRF {
					want = RRF(lists, weights, cfg.K)
				} else {
					want = Weighted(lists, weights)
				}
				want = want[:min(3, len(want))]
				if diff := cmp.Diff(want, got, approx); diff != "" {
					t.Errorf("%q: fused list differs from fusion of the members' lists (-want +got):\n%s", q.query, diff)
				}
				if len(got) == 0 || got[0].DocID != q.gold {
					t.Errorf("%q: top hit %v, want %s (members: bm25 %v, dense %v)", q.query, got, q.gold, lists[0], lists[1])
				}
			}
		})
	}
}
