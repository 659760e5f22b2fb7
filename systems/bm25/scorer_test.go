package bm25

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/systems"
)

// TestSearchMatchesFTS5 checks that Search (the decoded index, scored in
// Go) returns exactly what FTS5's bm25() in SQL returns: the same docs in
// the same order with bit-identical scores, for every config, at several
// depths, on a generated code corpus whose queries mix frequent and rare
// terms.
func TestSearchMatchesFTS5(t *testing.T) {
	c := generatedCorpus(3000)
	queries := generatedQueries(60)
	queries = append(queries, "ParseHTTPResponse2 read_file", "the", "zzzunknown", "Ünïcödé café", `"quoted" OR NOT`)
	for _, cfg := range Configs() {
		t.Run(cfg.Name, func(t *testing.T) {
			x, err := New(cfg, systems.Options{CacheDir: t.TempDir(), Logf: t.Logf})
			require.NoError(t, err)
			defer x.Close()
			require.NoError(t, x.Index(t.Context(), c))
			if x.mem == nil {
				t.Fatal("the index was not decoded: Search falls back to SQL and this test checks nothing new")
			}
			toks, err := x.toks.tokens(t.Context(), []string{"the", "running", "zzz"})
			require.NoError(t, err)
			want := [][]string{{"the"}, {"running"}, {"zzz"}}
			if cfg.Tokenizer != TokUnicode61 {
				want[1] = []string{"run"}
			}
			if diff := cmp.Diff(want, toks); diff != "" {
				t.Fatalf("FTS5's tokens of query terms (-want +got):\n%s", diff)
			}
			check := func(path string) {
				for _, q := range queries {
					for _, k := range []int{1, 10, 100, 5000} {
						want, err := x.SearchFTS5(t.Context(), q, k)
						require.NoError(t, err)
						got, err := x.Search(t.Context(), q, k)
						require.NoError(t, err)
						if diff := cmp.Diff(want, got); diff != "" {
							t.Fatalf("%s: query %q k=%d (-FTS5 +Search):\n%s", path, q, k, diff)
						}
					}
				}
			}
			check("decoded index")
			// The fallback: per-term contributions from FTS5 in SQL.
			x.mem = nil
			check("per-term SQL")
		})
	}
}
