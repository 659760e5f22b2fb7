package bench

import (
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/report"
)

var (
	update     = flag.Bool("update", false, "rewrite golden files from this run instead of comparing (never in CI)")
	size       = flag.String("size", "small", "which datasets run: fixture (hermetic fixtures only), small (fixtures + small splits of the data pack), full (whole data-pack datasets)")
	splitFlag  = flag.String("split", "", "split of data-pack datasets: all, dev, test, small_dev, small_test (default: \"small\" — the test split of a few small repositories — for -size=small, all for -size=full)")
	dataFlag   = flag.String("data", "", "data pack directory (default $RETRIEVALBENCH_DATA)")
	resultsDir = flag.String("results", "", "if set, write per-task JSONL results of every cell into this directory")
)

const goldenRoot = "../golden"

// dataset is one dataset entry of a benchmark family: a subtest name and a
// loader. Hermetic datasets (fixtures in the repository) run on any
// machine; the others need the data pack.
type dataset struct {
	name     string
	hermetic bool
	// load returns the dataset for the split; dataDir is "" for hermetic ones.
	load func(dataDir, split string) (*datasets.Dataset, error)
	// small names the corpora (a few small repositories) that -size=small
	// runs: the dataset's test split restricted to them, labelled "small".
	// Without it, -size=small runs the small_test split.
	small []string
	// pool makes -size=small search the small_test tasks among the docs
	// judged in the whole dataset (datasets.JudgedPool): for document
	// collections too large to embed in CI.
	pool bool
}

// loadFor loads d as the -size and -split flags ask.
func (d dataset) loadFor(dir string) (*datasets.Dataset, error) {
	switch {
	case d.hermetic:
		return d.load("", "all")
	case *splitFlag != "":
		return d.load(dir, *splitFlag)
	case *size == "full":
		return d.load(dir, "all")
	case d.pool:
		ds, err := d.load(dir, "small_test")
		if err != nil {
			return nil, err
		}
		all, err := d.load(dir, "all")
		if err != nil {
			return nil, err
		}
		return datasets.JudgedPool(ds, all, "small")
	case d.small == nil:
		return d.load(dir, "small_test")
	}
	ds, err := d.load(dir, "test")
	if err != nil {
		return nil, err
	}
	return datasets.Restrict(ds, d.small, "small")
}

func dataDir(t testing.TB) string {
	if *dataFlag != "" {
		return *dataFlag
	}
	dir, ok := testenv.DataDir()
	if !ok {
		testenv.Missing(t, testenv.Data, "set "+testenv.EnvData+" or -data to the data pack directory (e.g. ../shared/datasets)")
	}
	return dir
}

// prepared caches prepared datasets across the cells of one test binary:
// every system of a family shares one load and one chunking.
var prepared = struct {
	sync.Mutex
	m map[string]*preparedEntry
}{m: map[string]*preparedEntry{}}

type preparedEntry struct {
	once sync.Once
	p    *harness.Prepared
	err  error
}

// prepare loads and chunks d once per test binary; Test and Benchmark
// functions of one run share the result.
func prepare(t testing.TB, family string, d dataset) *harness.Prepared {
	t.Helper()
	dir := ""
	if !d.hermetic {
		switch *size {
		case "fixture":
			t.Skipf("-size=fixture runs hermetic fixtures only")
		case "small", "full":
		default:
			t.Fatalf("-size=%q: want fixture, small or full", *size)
		}
		dir = dataDir(t)
	}
	key := family + "/" + d.name
	prepared.Lock()
	e, ok := prepared.m[key]
	if !ok {
		e = &preparedEntry{}
		prepared.m[key] = e
	}
	prepared.Unlock()
	e.once.Do(func() {
		ds, err := d.loadFor(dir)
		if err != nil {
			e.err = fmt.Errorf("loading %s: %w", d.name, err)
			return
		}
		e.p, e.err = harness.Prepare(ds, chunk.DefaultOptions())
	})
	if e.err != nil {
		t.Fatal(e.err)
	}
	return e.p
}

// registryBySystem groups harness.Registry() by system, keeping its order.
func registryBySystem() ([]string, map[string][]harness.Spec) {
	var order []string
	by := map[string][]harness.Spec{}
	for _, s := range harness.Registry() {
		if _, ok := by[s.System]; !ok {
			order = append(order, s.System)
		}
		by[s.System] = append(by[s.System], s)
	}
	return order, by
}

// runFamily runs every registered system config on every dataset of a
// family, as subtests family/system/config/dataset, each gated by its
// golden file.
func runFamily(t *testing.T, family string, sets []dataset) {
	systemsInOrder, bySystem := registryBySystem()
	for _, sys := range systemsInOrder {
		t.Run(sys, func(t *testing.T) {
			for _, spec := range bySystem[sys] {
				t.Run(spec.Config, func(t *testing.T) {
					for _, d := range sets {
						t.Run(d.name, func(t *testing.T) { runCell(t, family, d, spec) })
					}
				})
			}
		})
	}
}

// heavyFamilies are the families where heavy configs (slow embedding
// models) run at -size=small on data-pack datasets; elsewhere they run on
// the hermetic fixtures only, and everywhere at -size=full.
var heavyFamilies = map[string]bool{"repoqa": true}

func runCell(t *testing.T, family string, d dataset, spec harness.Spec) {
	if spec.Heavy && *size != "full" && !d.hermetic && !heavyFamilies[family] {
		t.Skipf("SKIP (by design): %s is a heavy config; at -size=%s it runs on RepoQA and the fixtures only, -size=full runs it here", spec.Name(), *size)
	}
	cache := testenv.CacheDir()
	if spec.Requires != nil {
		if kind, err := spec.Requires(cache); err != nil {
			testenv.Missing(t, kind, err.Error())
		}
	}
	p := prepare(t, family, d)
	cfg := harness.DefaultRunConfig()
	cfg.CacheDir = cache
	cfg.Logf = t.Logf
	res, err := harness.Run(t.Context(), p, spec, cfg)
	if err != nil {
		t.Fatalf("%s on %s: %v", spec.Name(), d.name, err)
	}
	t.Log(summaryLine(res, p))
	if *resultsDir != "" {
		if err := writeResults(*resultsDir, p, res); err != nil {
			t.Errorf("writing results: %v", err)
		}
	}
	path := harness.GoldenPath(goldenRoot, res.Dataset, res.Split, spec.System, spec.Config)
	if *update {
		if failed := res.Failed(); len(failed) > 0 {
			t.Fatalf("not updating %s: %d tasks failed, first %s: %s", path, len(failed), failed[0].ID, failed[0].Err)
		}
		if err := harness.WriteGolden(path, harness.NewGolden(res, spec.Tolerance, spec.ToleranceReason)); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s", path)
		return
	}
	g, err := harness.ReadGolden(path)
	if err != nil {
		t.Fatalf("%v\ncreate it with: go test ./bench -run '%s' -update%s", err, runPattern(t.Name()), sizeFlags())
	}
	v := harness.Compare(g, res)
	for _, f := range v.Failures {
		t.Error(f)
	}
	if !v.OK() {
		t.Logf("golden: %s; if the change is intended, run: go test ./bench -run '%s' -update%s", path, runPattern(t.Name()), sizeFlags())
	}
	for _, imp := range v.Improvements {
		t.Logf("improved %s — to raise the baseline run: go test ./bench -run '%s' -update%s", imp, runPattern(t.Name()), sizeFlags())
	}
}

// runPattern turns a test name into a -run pattern that selects exactly it.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

func sizeFlags() string {
	s := ""
	if *size != "small" {
		s += " -size=" + *size
	}
	if *splitFlag != "" {
		s += " -split=" + *splitFlag
	}
	return s
}

func summaryLine(res *harness.Result, p *harness.Prepared) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s[%s] %s/%s: %d tasks", res.Dataset, res.Split, res.System, res.Config, len(res.Tasks))
	for _, m := range res.Measures {
		col, _ := res.Column(m.String())
		sum := 0.0
		for _, v := range col {
			sum += v
		}
		if len(col) > 0 {
			fmt.Fprintf(&b, " %s=%.4f", m, sum/float64(len(col)))
		}
	}
	fmt.Fprintf(&b, "; index %d docs in %v", res.IndexedDocs, res.IndexTime.Round(1e6))
	if n := len(p.Dataset.Dropped); n > 0 {
		fmt.Fprintf(&b, "; %d source rows dropped", n)
	}
	return b.String()
}

// writeResults writes the cell's per-task records in the report package's
// canonical format, so "retrievalbench report -results DIR" reads test runs
// and campaigns alike.
func writeResults(dir string, p *harness.Prepared, res *harness.Result) error {
	kinds := map[string]string{}
	for _, c := range p.Corpora {
		for _, d := range c.Docs {
			kinds[d.ID] = d.Kind
		}
	}
	file := filepath.Join(dir, report.RecordsFileName(res.Dataset, res.Split, res.System, res.Config))
	return report.WriteRecords(file, report.FromHarness(res, kinds, true))
}
