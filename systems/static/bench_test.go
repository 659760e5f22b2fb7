package static

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
	"github.com/retrievalbench/retrievalbench/internal/rss"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
)

var benchDocs = flag.Int("static.docs", 300, "chunks of the RepoQA Python repos to index in the benchmarks (0: all)")

// repoqaSample returns n chunks of the ten RepoQA Python repositories,
// spread evenly over them in a fixed order (all chunks when n is 0): the
// sample systems/dense's benchmarks index, so docs/s compare.
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

// BenchmarkIndex measures embedding a sample of RepoQA Python chunks (the
// model is loaded once, outside the timing) and reports docs/s, docs per
// CPU-second of the process (what the rate would be on an idle core: on a
// shared machine wall time mostly measures waiting) and the peak RSS.
//
//	go test ./systems/static -run '^$' -bench Index -benchtime 1x -static.docs 300
func BenchmarkIndex(b *testing.B) {
	c := repoqaSample(b, *benchDocs)
	for _, cfg := range Configs() {
		b.Run("model="+cfg.Name, func(b *testing.B) {
			x, err := New(cfg, systems.Options{CacheDir: mustHave(b, cfg)})
			require.NoError(b, err)
			defer x.Close()
			cpu0 := cpuTime(b)
			for b.Loop() {
				require.NoError(b, x.Index(b.Context(), c))
			}
			cpu := cpuTime(b) - cpu0
			b.ReportMetric(float64(b.N*len(c.Docs))/b.Elapsed().Seconds(), "docs/s")
			if cpu > 0 {
				b.ReportMetric(float64(b.N*len(c.Docs))/cpu.Seconds(), "docs/cpu-s")
			}
			if peak, err := rss.Peak(); err == nil {
				b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			}
		})
	}
}

// BenchmarkLoad measures loading the model (tokenizer.json and safetensors).
func BenchmarkLoad(b *testing.B) {
	for _, cfg := range Configs() {
		b.Run("model="+cfg.Name, func(b *testing.B) {
			cache := mustHave(b, cfg)
			for b.Loop() {
				_, err := New(cfg, systems.Options{CacheDir: cache})
				require.NoError(b, err)
			}
		})
	}
}

// BenchmarkSearch measures one query (embedding plus exact scan).
func BenchmarkSearch(b *testing.B) {
	c := repoqaSample(b, *benchDocs)
	for _, cfg := range Configs() {
		b.Run("model="+cfg.Name, func(b *testing.B) {
			x, err := New(cfg, systems.Options{CacheDir: mustHave(b, cfg)})
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

// cpuTime is the user+system CPU time of the process so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Skipf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
