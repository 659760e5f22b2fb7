package benchtest

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/leakage"
)

// Dataset is one dataset of a family: a subtest name and a loader.
type Dataset struct {
	Name string
	// Hermetic datasets (fixtures shipped with retrievalbench) run on any
	// machine and at every size; the others need the data pack.
	Hermetic bool
	// Load returns the dataset for a split; dataDir is "" for hermetic ones.
	Load func(dataDir, split string) (*datasets.Dataset, error)
	// Small names the corpora (a few small repositories) that -size=small
	// runs: the dataset's test split restricted to them, labelled "small".
	// Without it (and without Pool), -size=small runs the small_test split.
	Small []string
	// LoadSmall, when set, loads the test split of the Small corpora alone
	// (a generator that costs time per repository skips the others); it
	// must give the tasks Load(dataDir, "test") restricted to Small gives.
	LoadSmall func(dataDir string) (*datasets.Dataset, error)
	// Pool makes -size=small search the small_test tasks among the docs
	// judged in the whole dataset (datasets.JudgedPool): for document
	// collections too large to embed in CI.
	Pool bool
}

// Family is a named group of datasets: the Test function's name part
// ("repoqa" in TestRepoQA/…) and its datasets in order.
type Family struct {
	Name     string
	Datasets []Dataset
	// HeavyAtSmall lets heavy configs (Spec.Heavy) run on this family's
	// data-pack datasets at -size=small; elsewhere they run on the fixtures
	// only, and everywhere at -size=full.
	HeavyAtSmall bool
	// SmallSystems, when set, are the only configs (path.Match patterns on
	// "system/config": "bm25/*") that run on this family's data-pack
	// datasets at -size=small; the others skip by design there (CI budget)
	// and run at -size=full.
	SmallSystems []string
}

// smallRuns reports whether spec runs on f's data-pack datasets at
// -size=small (see SmallSystems).
func (f Family) smallRuns(name string) bool {
	if len(f.SmallSystems) == 0 {
		return true
	}
	for _, p := range f.SmallSystems {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// load loads d as the size and split flags ask.
func (d Dataset) load(f *Flags, dir string) (*datasets.Dataset, error) {
	switch {
	case d.Hermetic:
		return d.Load("", "all")
	case f.Split != "":
		return d.Load(dir, f.Split)
	case f.Size == SizeFull:
		return d.Load(dir, "all")
	case d.Pool:
		ds, err := d.Load(dir, "small_test")
		if err != nil {
			return nil, err
		}
		all, err := d.Load(dir, "all")
		if err != nil {
			return nil, err
		}
		return datasets.JudgedPool(ds, all, "small")
	case d.Small == nil:
		return d.Load(dir, "small_test")
	}
	load := func() (*datasets.Dataset, error) { return d.Load(dir, "test") }
	if d.LoadSmall != nil {
		load = func() (*datasets.Dataset, error) { return d.LoadSmall(dir) }
	}
	ds, err := load()
	if err != nil {
		return nil, err
	}
	return datasets.Restrict(ds, d.Small, "small")
}

// dataDir is the data pack directory: -data, else $RETRIEVALBENCH_DATA (or
// the default data directory); a missing one skips, or fails when the run
// requires data.
func dataDir(t testing.TB, f *Flags) string {
	if f.Data != "" {
		return f.Data
	}
	dir, ok := testenv.DataDir()
	if !ok {
		testenv.Missing(t, testenv.Data, "set "+testenv.EnvData+" or -data to the data pack directory (e.g. ../shared/datasets)")
	}
	return dir
}

// prepared caches prepared datasets across the cells of one test binary:
// every system of a family shares one load and one chunking, and Test and
// Benchmark functions of one run share the result.
var prepared = struct {
	sync.Mutex
	m map[string]*preparedEntry
}{m: map[string]*preparedEntry{}}

type preparedEntry struct {
	once    sync.Once
	p       *harness.Prepared
	leakage string // leakage.Summarize of the dataset, logged by its first cell
	err     error
}

// Prepare loads and chunks d of family once per test binary (per size and
// split), skipping when d needs the data pack and the run has none.
func Prepare(t testing.TB, f *Flags, family string, d Dataset) *harness.Prepared {
	t.Helper()
	if err := f.check(); err != nil {
		t.Fatal(err)
	}
	dir := ""
	if !d.Hermetic {
		if f.Size == SizeFixture {
			t.Skipf("-size=fixture runs hermetic fixtures only")
		}
		dir = dataDir(t, f)
	}
	key := fmt.Sprintf("%s/%s size=%s split=%s data=%s", family, d.Name, f.Size, f.Split, dir)
	prepared.Lock()
	e, ok := prepared.m[key]
	if !ok {
		e = &preparedEntry{}
		prepared.m[key] = e
	}
	prepared.Unlock()
	e.once.Do(func() {
		ds, err := d.load(f, dir)
		if err != nil {
			e.err = fmt.Errorf("loading %s: %w", d.Name, err)
			return
		}
		if e.p, e.err = harness.Prepare(ds, chunk.DefaultOptions()); e.err != nil {
			return
		}
		if sum, err := leakage.Summarize(ds); err != nil {
			e.leakage = "leakage: " + err.Error()
		} else {
			e.leakage = sum
		}
		t.Logf("%s[%s]: %s", ds.Name, ds.Split, e.leakage)
	})
	if e.err != nil {
		t.Fatal(e.err)
	}
	return e.p
}

// FixturesDir is the directory of the hermetic fixtures shipped with
// retrievalbench: $RETRIEVALBENCH_FIXTURES if set, else the fixtures
// directory of the module source this package was built from (in a
// checkout, or the module cache for a user's module).
func FixturesDir() string {
	if d := os.Getenv("RETRIEVALBENCH_FIXTURES"); d != "" {
		return d
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "fixtures"
	}
	return filepath.Join(filepath.Dir(file), "..", "fixtures")
}
