package dense

import (
	"flag"
	"fmt"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets/repoqa"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
)

var benchDocs = flag.Int("dense.docs", 300, "chunks of the RepoQA Python repos to index in the dense benchmarks (0: all)")

// repoqaSample returns n chunks of the ten RepoQA Python repositories, spread
// evenly over them in a fixed order (all chunks when n is 0).
func repoqaSample(tb testing.TB, n int) *corpus.Corpus {
	tb.Helper()
	path := testenv.MustHaveData(tb, repoqa.CorporaFile)
	rel, err := repoqa.ReadRelease(path)
	require.NoError(tb, err)
	files := &corpus.Corpus{ID: "repoqa-python"}
	for _, r := range rel.Repos {
		paths := make([]string, 0, len(r.Content))
		for p := range r.Content {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			files.Docs = append(files.Docs, corpus.Doc{
				ID: r.Repo + "/" + p, Path: p, Kind: "file", Language: codetext.LanguageOf(p), Text: r.Content[p],
			})
		}
	}
	chunks, _, err := chunk.Corpus(files, chunk.DefaultOptions())
	require.NoError(tb, err)
	if n <= 0 || n >= len(chunks.Docs) {
		return chunks
	}
	sample := &corpus.Corpus{ID: fmt.Sprintf("repoqa-python-%d", n)}
	for i := range n {
		sample.Docs = append(sample.Docs, chunks.Docs[i*len(chunks.Docs)/n])
	}
	return sample
}

// BenchmarkIndex measures indexing a sample of RepoQA Python chunks:
// cache=cold embeds every doc (Options.NoCache), cache=warm finds every vector
// in the store. It reports docs/s and the share of embedding time spent
// inside ONNX Runtime.
//
//	go test ./systems/dense -run '^$' -bench Index -benchtime 1x -dense.docs 300
func BenchmarkIndex(b *testing.B) {
	c := repoqaSample(b, *benchDocs)
	for _, cfg := range Configs() {
		b.Run("model="+cfg.Name, func(b *testing.B) {
			cache := mustHave(b, cfg)
			root := b.TempDir()
			linkModels(b, cache, root)
			for _, mode := range []string{"cold", "warm"} {
				b.Run("cache="+mode, func(b *testing.B) {
					x, err := New(cfg, systems.Options{CacheDir: root, NoCache: mode == "cold"})
					require.NoError(b, err)
					defer x.Close()
					if mode == "warm" {
						require.NoError(b, x.Index(b.Context(), c)) // fill the store
					}
					var embed, ort time.Duration
					cpu0 := cpuTime(b)
					for b.Loop() {
						require.NoError(b, x.Index(b.Context(), c))
						embed += x.Stats().Embed
						ort += x.Stats().ORT
					}
					cpu := cpuTime(b) - cpu0
					b.ReportMetric(float64(b.N*len(c.Docs))/b.Elapsed().Seconds(), "docs/s")
					if mode == "cold" && cpu > 0 {
						// What the rate would be with the cores to itself: on a
						// shared machine wall time mostly measures waiting.
						b.ReportMetric(float64(b.N*len(c.Docs))/cpu.Seconds(), "docs/cpu-s")
					}
					if embed > 0 {
						b.ReportMetric(100*ort.Seconds()/embed.Seconds(), "%ort")
					}
				})
			}
		})
	}
}

// BenchmarkSearch measures one query (embedding plus exact scan).
func BenchmarkSearch(b *testing.B) {
	c := repoqaSample(b, *benchDocs)
	for _, cfg := range Configs() {
		b.Run("model="+cfg.Name, func(b *testing.B) {
			cache := mustHave(b, cfg)
			root := b.TempDir()
			linkModels(b, cache, root)
			x, err := New(cfg, systems.Options{CacheDir: root})
			require.NoError(b, err)
			defer x.Close()
			require.NoError(b, x.Index(b.Context(), c))
			i := 0
			for b.Loop() {
				_, err := x.Search(b.Context(), testQueries[i%len(testQueries)].query, 10)
				require.NoError(b, err)
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
		})
	}
}

// cpuTime is the user+system CPU time of the process so far (every thread,
// ONNX Runtime's included).
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Skipf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
