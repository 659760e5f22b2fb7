package bm25

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
)

const repoQAPython = "repoqa/repoqa-python-corpora.json.gz"

// loadRepoQAPython reads the data pack's RepoQA Python corpora with whole
// files as docs (chunking is the chunk package's job, not this one's).
func loadRepoQAPython(t testing.TB) []*corpus.Corpus {
	t.Helper()
	path := testenv.MustHaveData(t, repoQAPython)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	var data struct {
		Python []struct {
			Repo      string            `json:"repo"`
			CommitSHA string            `json:"commit_sha"`
			Content   map[string]string `json:"content"`
		} `json:"python"`
	}
	require.NoError(t, json.NewDecoder(zr).Decode(&data), path)
	var out []*corpus.Corpus
	for _, r := range data.Python {
		c := &corpus.Corpus{ID: r.Repo, Commit: r.CommitSHA}
		for _, p := range slices.Sorted(func(yield func(string) bool) {
			for p := range r.Content {
				if !yield(p) {
					return
				}
			}
		}) {
			c.Docs = append(c.Docs, corpus.Doc{ID: p, Path: p, Kind: "file", Language: "python", Text: r.Content[p]})
		}
		out = append(out, c)
	}
	require.Len(t, out, 10, "the data pack holds the ten repositories of the RepoQA Python set")
	return out
}

var docstringSummary = regexp.MustCompile(`(?m)^\s*(?:async\s+)?def\s+\w+[^\n]*:\s*\n\s*[rRuU]?(?:"""|''')\s*([A-Za-z][^\n"']{15,})$`)

// docstringQueries samples up to n docstring summary lines of c, seeded:
// the kind of natural-language query the docstring dataset asks.
func docstringQueries(c *corpus.Corpus, n int) []string {
	var all []string
	for _, d := range c.Docs {
		for _, m := range docstringSummary.FindAllStringSubmatch(d.Text, -1) {
			all = append(all, strings.TrimSpace(m[1]))
		}
	}
	r := rand.New(rand.NewPCG(7, 11))
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:min(n, len(all))]
}

// TestRepoQAPythonLatency indexes the ten RepoQA Python repositories (whole
// files, no cache) under every config and measures search latency with
// docstring-summary queries. It checks the targets with margin for
// a loaded machine: the index of all ten in under 60 s, search p50 under 2 ms.
func TestRepoQAPythonLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 10 MB of source per config")
	}
	corpora := loadRepoQAPython(t)
	var bytes, docs int
	for _, c := range corpora {
		docs += len(c.Docs)
		for _, d := range c.Docs {
			bytes += len(d.Text)
		}
	}
	t.Logf("RepoQA Python: %d repos, %d files, %.1f MB", len(corpora), docs, float64(bytes)/1e6)
	cache := t.TempDir()
	for _, cfg := range Configs() {
		t.Run(cfg.Name, func(t *testing.T) {
			var indexTime time.Duration
			var lat []time.Duration
			var hits, queries int
			for _, c := range corpora {
				x, err := New(cfg, systems.Options{CacheDir: cache, NoCache: true})
				require.NoError(t, err)
				start := time.Now()
				require.NoError(t, x.Index(t.Context(), c))
				indexTime += time.Since(start)
				for _, q := range docstringQueries(c, 50) {
					start := time.Now()
					h, err := x.Search(t.Context(), q, 10)
					lat = append(lat, time.Since(start))
					require.NoError(t, err, "%s: %q", c.ID, q)
					queries++
					if len(h) > 0 {
						hits++
					}
				}
				require.NoError(t, x.Close())
			}
			slices.Sort(lat)
			p50, p95 := lat[len(lat)/2], lat[len(lat)*95/100]
			t.Logf("%s: index 10 repos %s (%.0f docs/s, %.1f MB/s); search p50 %s p95 %s max %s over %d queries (%d with hits)",
				cfg.Name, indexTime.Round(time.Millisecond), float64(docs)/indexTime.Seconds(), float64(bytes)/1e6/indexTime.Seconds(),
				p50.Round(time.Microsecond), p95.Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond), queries, hits)
			// The targets (all ten repos under 60 s, p50 under 2 ms) are
			// measured and reported here, never asserted: a test must not
			// fail because the machine is busy. BenchmarkIndex and
			// BenchmarkSearch give the numbers benchstat compares.
			if queries < 200 || hits < queries*9/10 {
				t.Errorf("%d queries, %d with hits: the query sample or the index is broken", queries, hits)
			}
		})
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		t.Logf("peak RSS of the test process: %.0f MB", float64(ru.Maxrss)/1024)
	}
}

// BenchmarkRepoQAPython measures index build (all ten repos, no cache) and
// search (docstring-summary queries, k=10) on the real corpus.
func BenchmarkRepoQAPython(b *testing.B) {
	corpora := loadRepoQAPython(b)
	docs := 0
	var queries [][]string
	for _, c := range corpora {
		docs += len(c.Docs)
		queries = append(queries, docstringQueries(c, 50))
	}
	for _, cfg := range Configs() {
		b.Run(fmt.Sprintf("config=%s/op=index", cfg.Name), func(b *testing.B) {
			cache := b.TempDir()
			for b.Loop() {
				for _, c := range corpora {
					x, err := New(cfg, systems.Options{CacheDir: cache, NoCache: true})
					require.NoError(b, err)
					require.NoError(b, x.Index(b.Context(), c))
					require.NoError(b, x.Close())
				}
			}
			b.ReportMetric(float64(docs*b.N)/b.Elapsed().Seconds(), "docs/s")
		})
		b.Run(fmt.Sprintf("config=%s/op=search", cfg.Name), func(b *testing.B) {
			cache := b.TempDir()
			idx := make([]*Index, len(corpora))
			for i, c := range corpora {
				x, err := New(cfg, systems.Options{CacheDir: cache})
				require.NoError(b, err)
				defer x.Close()
				require.NoError(b, x.Index(b.Context(), c))
				idx[i] = x
			}
			n := 0
			for b.Loop() {
				r := n % len(idx)
				qs := queries[r]
				if _, err := idx[r].Search(b.Context(), qs[(n/len(idx))%len(qs)], 10); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}
