package bm25

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
)

// vocabulary for generated code: identifiers in several styles.
var genWords = strings.Fields(`parse http response request client server token lexer render template
cache index search query config load save read write open close buffer stream encode decode json yaml
user session auth login logout handler route path file dir node graph edge tree walk visit build
compile link test bench metric score rank sort merge split join filter map reduce batch queue worker`)

// generatedCorpus returns n deterministic Python-like function docs.
func generatedCorpus(n int) *corpus.Corpus {
	r := rand.New(rand.NewPCG(1, 2))
	w := func() string { return genWords[r.IntN(len(genWords))] }
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

func generatedQueries(n int) []string {
	r := rand.New(rand.NewPCG(3, 4))
	q := make([]string, n)
	for i := range q {
		q[i] = fmt.Sprintf("%s the %s %s %s", genWords[r.IntN(len(genWords))], genWords[r.IntN(len(genWords))],
			genWords[r.IntN(len(genWords))], genWords[r.IntN(len(genWords))])
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
