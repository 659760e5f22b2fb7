package benchtest

// Latency, memory and quality benchmarks of every dataset × system × config
// that the Test… functions check. Names are key=value so benchstat can pivot:
//
//	BenchmarkRepoQA/system=bm25/config=porter/dataset=docstring/op=index
//	BenchmarkRepoQA/system=bm25/config=porter/dataset=docstring/op=search
//
// op=index builds the dataset's indexes from scratch (Options.NoCache): one
// iteration creates a fresh system for each corpus that has tasks, indexes
// it and closes it — the whole dataset, as harness.Run does — and the
// benchmark reports docs/s over all those corpora. op=search opens the
// warm index (the on-disk cache; the first run of a binary builds it) before
// the timed loop and runs one query per iteration, cycling through the
// dataset's tasks in order, reporting queries/s. Both report peak-RSS-bytes
// (see internal/rss): over the whole build for op=index, over the timed
// loop with the indexes open for op=search. op=search also reports the config's quality on the
// dataset (hit@1, hit@10, MRR, nDCG@10: micro means over the tasks, as the
// golden files record them), computed once per binary with matrix.Run so
// the timed loop only searches.
//
// docs/benchmarking.md explains how to run, compare and gate these.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/internal/rss"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/matrix"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/systems"
)

// EnvBenchDelay plants a slowdown for checking the regression gate by hand:
// a Go duration ("1ms") slept after every query of every op=search
// benchmark, inside the timed loop. Never set it for a real measurement;
// each op=search benchmark says so in its log (b.Logf: go test merges the
// binary's stderr into the benchmark file, and a line such as "bench: …"
// there reads as a configuration key to benchfmt, splitting benchstat's
// tables).
const EnvBenchDelay = "RETRIEVALBENCH_BENCH_DELAY"

// QualityUnit is a harness measure and the benchmark unit reported for it.
type QualityUnit struct{ Measure, Unit string }

// qualityMeasures are the measures op=search reports, in order.
func qualityMeasures() []metrics.Measure {
	return []metrics.Measure{metrics.Hit.At(1), metrics.Hit.At(10), metrics.MRR.At(0), metrics.NDCG.At(10)}
}

// QualityUnits returns the quality units op=search reports, in order: each
// measure's name as the harness records it and its label as the unit
// (hit@1, hit@10, MRR, nDCG@10).
func QualityUnits() []QualityUnit {
	var us []QualityUnit
	for _, m := range qualityMeasures() {
		us = append(us, QualityUnit{m.String(), m.Label()})
	}
	return us
}

// Unit names of the non-quality metrics.
const (
	UnitQueries = "queries/s"
	UnitDocs    = "docs/s"
	UnitPeakRSS = "peak-RSS-bytes"
)

// UnitMetadata is printed once per benchmark binary, from a parent
// benchmark before its first b.Run (a line printed inside a leaf would be
// spliced into the leaf's result line). benchstat and retrievalbench gate
// read it: quality measures are deterministic and higher is better.
func UnitMetadata() []string {
	var lines []string
	for _, m := range qualityMeasures() {
		better := "higher"
		if m.Lower {
			better = "lower"
		}
		lines = append(lines, "Unit "+m.Label()+" better="+better+" assume=exact")
	}
	return append(lines,
		"Unit "+UnitQueries+" better=higher",
		"Unit "+UnitDocs+" better=higher",
		"Unit "+UnitPeakRSS+" better=lower",
	)
}

var unitsOnce sync.Once

// benchDelay reads EnvBenchDelay once.
var benchDelay = sync.OnceValues(func() (time.Duration, error) {
	s := os.Getenv(EnvBenchDelay)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%q: want a non-negative Go duration such as 1ms", EnvBenchDelay, s)
	}
	return d, nil
})

// Benchmark runs op=index and op=search for every system of s on every
// dataset of f, as sub-benchmarks system=…/config=…/dataset=…/op=….
func Benchmark(b *testing.B, s Suite, f catalogue.Family) {
	unitsOnce.Do(func() {
		for _, l := range UnitMetadata() {
			fmt.Println(l)
		}
	})
	fl := s.flags()
	// -shard deals whole cells (op=index and op=search together) among
	// the cells -bench and -skip select, as Test deals its cells (plan).
	pl, err := s.plan(&benchPlanner, f, benchSelection(), func(k matrix.Key) string {
		return b.Name() + "/system=" + k.System + "/config=" + k.Config + "/dataset=" + k.Dataset
	}, s.benchCommand)
	if err != nil {
		b.Fatal(err)
	}
	if pl.note != "" {
		b.Log(pl.note)
	}
	sh := pl.Shard
	for _, sys := range pl.systems {
		b.Run("system="+sys, func(b *testing.B) {
			for _, spec := range pl.configs[sys] {
				b.Run("config="+spec.Config, func(b *testing.B) {
					cells := pl.cellsOf(spec)
					// A config whose every cell here is unsupported needs
					// nothing installed to skip them.
					runs := slices.ContainsFunc(cells, func(c *matrix.Cell) bool { return c.Skip.Kind != matrix.SkipUnsupported })
					if r := spec.Missing(testenv.CacheDir()); r != nil && runs {
						testenv.Missing(b, r.Kind, r.Reason)
					}
					for _, c := range cells {
						d := pl.dataset(c)
						b.Run("dataset="+d.Name, func(b *testing.B) {
							switch {
							case c.Skip.Kind == matrix.SkipUnsupported:
								skipUnsupported(b, spec, c.Skip.Why)
							case !pl.Mine(*c):
								b.Skipf("shard %s: this cell runs in shard %d/%d", sh, c.Part, sh.N)
							}
							// The cells' rules: a heavy or fixtures-only config
							// and a corpus over its budget skip by design.
							if k := c.Skip.Kind; k == matrix.SkipHeavy || k == matrix.SkipFixturesOnly {
								b.Skip("SKIP (by design): " + c.Skip.Why)
							}
							again := s.benchCommand(b.Name(), fl)
							p := Prepare(b, fl, f.Name, d)
							if why := overBudget(spec, fl, docsOf(p), again); why != "" {
								b.Skip("SKIP (by design): " + why)
							}
							b.Run("op=index", func(b *testing.B) { benchIndex(b, p, spec) })
							b.Run("op=search", func(b *testing.B) { benchSearch(b, f.Name, d.Name, p, spec) })
						})
					}
				})
			}
		})
	}
}

// taskCorpora returns the IDs of the corpora of p that have tasks, sorted
// (the corpora harness.Run indexes, in its order).
func taskCorpora(p *harness.Prepared) []string {
	seen := map[string]bool{}
	var ids []string
	for _, t := range p.Dataset.Tasks {
		if !seen[t.CorpusID] {
			seen[t.CorpusID] = true
			ids = append(ids, t.CorpusID)
		}
	}
	sort.Strings(ids)
	return ids
}

// resetPeak starts a peak-RSS measurement. Where the kernel refuses the
// reset, the reported peak is the process's high-water mark so far (it
// only grows over the run); the benchmark says so once in its log.
func resetPeak(b *testing.B) {
	if err := rss.ResetPeak(); err != nil {
		b.Logf("peak-RSS-bytes is the process high-water mark, not this benchmark's: %v", err)
	}
}

func reportPeak(b *testing.B) {
	peak, err := rss.Peak()
	if err != nil {
		b.Logf("peak-RSS-bytes not reported: %v", err)
		return
	}
	b.ReportMetric(float64(peak), UnitPeakRSS)
}

func benchIndex(b *testing.B, p *harness.Prepared, spec systems.Spec) {
	ids := taskCorpora(p)
	docs := 0
	for _, id := range ids {
		docs += len(p.Corpora[id].Docs) // chunks; a whole-file system indexes fewer, larger docs
	}
	opt := systems.Options{CacheDir: testenv.CacheDir(), NoCache: true}
	ctx := b.Context()
	resetPeak(b)
	for b.Loop() {
		for _, id := range ids {
			if err := indexOnce(ctx, spec, opt, p, id); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(docs)*float64(b.N)/b.Elapsed().Seconds(), UnitDocs)
	reportPeak(b)
}

// indexOnce builds one corpus's index with a fresh system and closes it.
func indexOnce(ctx context.Context, spec systems.Spec, opt systems.Options, p *harness.Prepared, id string) error {
	sys, err := spec.New(opt)
	if err != nil {
		return fmt.Errorf("%s: creating system: %w", spec.Name(), err)
	}
	if err := sys.Index(ctx, p.Input(sys, id)); err != nil {
		sys.Close()
		return fmt.Errorf("%s: indexing %s: %w", spec.Name(), id, err)
	}
	if err := sys.Close(); err != nil {
		return fmt.Errorf("%s: closing index of %s: %w", spec.Name(), id, err)
	}
	return nil
}

func benchSearch(b *testing.B, family, dataset string, p *harness.Prepared, spec systems.Spec) {
	delay, err := benchDelay()
	if err != nil {
		b.Fatal(err)
	}
	if delay > 0 {
		b.Logf("%s=%v: every query sleeps %v (a planted slowdown; not a real measurement)", EnvBenchDelay, delay, delay)
	}
	// Quality first, outside the peak-RSS window and the timed loop.
	quality := qualityOf(b, family, dataset, p, spec)

	cache := testenv.CacheDir()
	ctx := b.Context()
	open := map[string]systems.System{}
	defer func() {
		for _, s := range open {
			s.Close()
		}
	}()
	for _, id := range taskCorpora(p) {
		sys, err := spec.New(systems.Options{CacheDir: cache})
		if err != nil {
			b.Fatalf("%s: creating system: %v", spec.Name(), err)
		}
		open[id] = sys
		if err := sys.Index(ctx, p.Input(sys, id)); err != nil {
			b.Fatalf("%s: opening the index of %s: %v", spec.Name(), id, err)
		}
	}
	type query struct {
		sys  systems.System
		text string
	}
	queries := make([]query, len(p.Dataset.Tasks))
	for i, t := range p.Dataset.Tasks {
		queries[i] = query{open[t.CorpusID], t.Query}
	}
	depth := harness.DefaultRunConfig().Depth

	// The peak is measured from here: the warm indexes and models are
	// resident, the garbage of opening them (model files read into the Go
	// heap, vector store rows) is not. Opening is not what op=search
	// measures, and that garbage made the peak vary by ±20% between runs.
	resetPeak(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := queries[i]
		if i++; i == len(queries) {
			i = 0
		}
		if _, err := q.sys.Search(ctx, q.text, depth); err != nil {
			b.Fatalf("%s: search %q: %v", spec.Name(), q.text, err)
		}
		if delay > 0 {
			time.Sleep(delay)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), UnitQueries)
	reportPeak(b)
	for _, q := range QualityUnits() {
		if v, ok := quality[q.Unit]; ok {
			b.ReportMetric(v, q.Unit)
		}
	}
}

// qualities caches each cell's quality measures for the life of the
// binary: they are deterministic, and -count re-runs a leaf benchmark.
var qualities = struct {
	sync.Mutex
	m map[string]map[string]float64
}{m: map[string]map[string]float64{}}

// qualityOf runs the cell once with matrix.Run (warm caches) and returns
// the micro mean of each quality measure, keyed by benchmark unit. A
// measure the dataset declares undefined is absent.
func qualityOf(b *testing.B, family, dataset string, p *harness.Prepared, spec systems.Spec) map[string]float64 {
	key := family + "/" + dataset + "/" + spec.Name()
	qualities.Lock()
	defer qualities.Unlock()
	if q, ok := qualities.m[key]; ok {
		return q
	}
	cfg := harness.DefaultRunConfig()
	cfg.CacheDir = testenv.CacheDir()
	// The cell runs the one way every runner's cells run (matrix.Run):
	// a failing constructor or a panic is its Err, never the binary's.
	o := matrix.Run(b.Context(), p, spec, cfg)
	if o.Err != nil {
		b.Fatalf("%s on %s: %v", spec.Name(), dataset, o.Err)
	}
	res := o.Result
	if failed := res.Failed(); len(failed) > 0 {
		b.Fatalf("%s on %s: %d tasks failed, first %s: %s", spec.Name(), dataset, len(failed), failed[0].ID, failed[0].Err)
	}
	q := map[string]float64{}
	for _, u := range QualityUnits() {
		col, ok := res.Column(u.Measure)
		if !ok || len(col) == 0 {
			continue
		}
		sum := 0.0
		for _, v := range col {
			sum += v
		}
		q[u.Unit] = sum / float64(len(col))
	}
	qualities.m[key] = q
	return q
}
