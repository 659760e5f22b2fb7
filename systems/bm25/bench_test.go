package bm25

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets/trec"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
)

// genVocab is a deterministic vocabulary of pronounceable made-up words;
// generated text draws from it with a Zipf law, as identifiers and prose do,
// so postings lists have realistic lengths (a few very common terms, a long
// tail of rare ones).
var genVocab = func() []string {
	syl := strings.Fields("pa ra to ken lex ser ver que ry in dex ca che lo ad sa ve re wri te o pen clo se bu fer")
	r := rand.New(rand.NewPCG(9, 9))
	seen := map[string]bool{}
	var v []string
	for len(v) < 5000 {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			v = append(v, w)
		}
	}
	return v
}()

// genWords returns a Zipf-distributed word source over genVocab.
func genWords(seed uint64) func() string {
	z := rand.NewZipf(rand.New(rand.NewPCG(seed, seed+1)), 1.1, 2, uint64(len(genVocab)-1))
	return func() string { return genVocab[z.Uint64()] }
}

// generatedCorpus returns n deterministic Python-like function docs.
func generatedCorpus(n int) *corpus.Corpus {
	r := rand.New(rand.NewPCG(1, 2))
	w := genWords(1)
	c := &corpus.Corpus{ID: fmt.Sprintf("gen-%d", n), Docs: make([]corpus.Doc, n)}
	for i := range c.Docs {
		name := w() + "_" + w()
		if i%3 == 0 {
			name = w() + strings.ToUpper(w()[:1]) + w()[1:]
		}
		var b strings.Builder
		fmt.Fprintf(&b, "def %s(%s, %s):\n    \"\"\"%s the %s %s.\"\"\"\n", name, w(), w(), w(), w(), w())
		for range 5 + r.IntN(20) {
			fmt.Fprintf(&b, "    %s = %s.%s(%s_%s)\n", w(), w(), w(), w(), w())
		}
		path := fmt.Sprintf("pkg%d/%s.py", i%20, w())
		c.Docs[i] = corpus.Doc{ID: fmt.Sprintf("%s#%s-%d", path, name, i), Path: path, Symbol: name, Kind: "function", Text: b.String()}
	}
	return c
}

// generatedQueries returns n four-word queries: two words drawn like the
// corpus text (frequent ones, matching most docs: the costly part of a
// search) and two drawn uniformly from the vocabulary (mostly rare ones,
// which decide the ranking).
func generatedQueries(n int) []string {
	w := genWords(3)
	r := rand.New(rand.NewPCG(5, 6))
	u := func() string { return genVocab[r.IntN(len(genVocab))] }
	q := make([]string, n)
	for i := range q {
		q[i] = fmt.Sprintf("%s the %s of %s %s", w(), u(), w(), u())
	}
	return q
}

func BenchmarkIndex(b *testing.B) {
	c := generatedCorpus(10000)
	for _, cfg := range Configs() {
		b.Run("config="+cfg.Name, func(b *testing.B) {
			opt := systems.Options{CacheDir: b.TempDir(), NoCache: true}
			x, err := New(cfg, opt)
			require.NoError(b, err)
			defer x.Close()
			for b.Loop() {
				require.NoError(b, x.Index(b.Context(), c))
			}
			b.ReportMetric(float64(len(c.Docs)*b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

func BenchmarkSearch(b *testing.B) {
	c := generatedCorpus(10000)
	queries := generatedQueries(500)
	for _, cfg := range Configs() {
		b.Run("config="+cfg.Name, func(b *testing.B) {
			x, err := New(cfg, systems.Options{CacheDir: b.TempDir()})
			require.NoError(b, err)
			defer x.Close()
			require.NoError(b, x.Index(b.Context(), c))
			i := 0
			for b.Loop() {
				if _, err := x.Search(b.Context(), queries[i%len(queries)], 10); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}

// BenchmarkSearchVaswani searches the 93 Vaswani queries over its 11,429
// abstracts at depth 100 (the side-by-side with tantivy and bm25s in
// docs/performance.md), one query per op, with Search (the decoded index
// scored in Go) and SearchFTS5 (FTS5's bm25() in SQL), so a regression of
// either shows and so does their ratio.
func BenchmarkSearchVaswani(b *testing.B) {
	dir := testenv.MustHaveData(b, "vaswani")
	ds, err := trec.Load(filepath.Dir(dir), "vaswani", trec.DefaultConfig())
	require.NoError(b, err)
	x, err := New(Configs()[1], systems.Options{CacheDir: b.TempDir()})
	require.NoError(b, err)
	defer x.Close()
	require.NoError(b, x.Index(b.Context(), ds.Corpora["vaswani"]))
	for _, s := range []struct {
		name   string
		search func(context.Context, string, int) ([]systems.Hit, error)
	}{{"go", x.Search}, {"fts5", x.SearchFTS5}} {
		b.Run("scorer="+s.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := s.search(b.Context(), ds.Tasks[i%len(ds.Tasks)].Query, 100); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}
