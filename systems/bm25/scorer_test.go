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

// TestHashSizeSameScores builds one corpus with the build's FTS5 hashsize
// (the whole corpus pending in memory: one segment, written once at
// commit) and with a small one (many segments, merged by automerge and
// 'optimize', as before the hashsize was set): both must decode and score
// every query identically, and the segment ids show which path each build
// took; the many-segment index, left in the cache, is reused by a new
// Index (as an index built before the hashsize was set would be) and
// scores the same.
func TestHashSizeSameScores(t *testing.T) {
	c := generatedCorpus(3000)
	queries := append(generatedQueries(40), "ParseHTTPResponse2 read_file", "the")
	cfg, err := ConfigByName("porter")
	require.NoError(t, err)
	cache := t.TempDir()
	build := func(hashSize int) (*Index, int64) {
		old := ftsHashSize
		ftsHashSize = hashSize
		defer func() { ftsHashSize = old }()
		x, err := New(cfg, systems.Options{CacheDir: cache, NoCache: true})
		require.NoError(t, err)
		t.Cleanup(func() { x.Close() })
		require.NoError(t, x.Index(t.Context(), c))
		if x.mem == nil {
			t.Fatalf("hashsize %d: the index was not decoded", hashSize)
		}
		var seg int64
		require.NoError(t, x.db.QueryRow(`SELECT max(id >> 37) FROM fts_data WHERE id > 10`).Scan(&seg))
		return x, seg
	}
	one, oneSeg := build(ftsHashSize)
	many, manySeg := build(32 << 10)
	if oneSeg != 1 {
		t.Errorf("hashsize %d: segment id %d, want 1 (one segment, never merged)", ftsHashSize, oneSeg)
	}
	if manySeg <= 1 {
		t.Fatalf("hashsize 32 KiB: segment id %d: the corpus did not make several segments, so this test compares nothing", manySeg)
	}
	// The index built last (many segments, as the code before the hashsize
	// built them) is in the cache: a new Index reuses it and scores alike.
	reused, err := New(cfg, systems.Options{CacheDir: cache})
	require.NoError(t, err)
	defer reused.Close()
	require.NoError(t, reused.Index(t.Context(), c))
	if !reused.Stats().Reused || reused.mem == nil {
		t.Fatalf("the cached index: reused %v, decoded %v; want both", reused.Stats().Reused, reused.mem != nil)
	}
	for _, q := range queries {
		want, err := many.Search(t.Context(), q, 100)
		require.NoError(t, err)
		got, err := one.Search(t.Context(), q, 100)
		require.NoError(t, err)
		if len(want) == 0 {
			t.Fatalf("query %q: no hits", q)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("query %q (-many segments +one):\n%s", q, diff)
		}
		got, err = reused.Search(t.Context(), q, 100)
		require.NoError(t, err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("query %q (-built +reused from the cache):\n%s", q, diff)
		}
	}
}
