package benchtest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/datasets/leakage"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// load loads d as the size and split flags ask.
func load(d catalogue.Dataset, f *Flags, dir string) (*datasets.Dataset, error) {
	switch {
	case d.Hermetic:
		return d.Load("", datasets.SplitAll)
	case f.Split != "":
		return d.Load(dir, f.Split)
	case f.Size == SizeFull:
		return d.Load(dir, datasets.SplitAll)
	}
	return d.LoadSmall(dir)
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
	leakage string // leakage.SummaryLine of the dataset, logged by its first cell
	err     error
}

// Prepare loads and chunks d of family once per test binary (per size and
// split), skipping when d needs the data pack and the run has none.
func Prepare(t testing.TB, f *Flags, family string, d catalogue.Dataset) *harness.Prepared {
	t.Helper()
	if err := f.check(); err != nil {
		t.Fatal(err)
	}
	dir := ""
	if !d.Hermetic {
		if f.Size == SizeFixture {
			t.Skip(sizeFixtureSkip)
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
		ds, err := load(d, f, dir)
		if err != nil {
			e.err = fmt.Errorf("loading %s: %w", d.Name, err)
			return
		}
		if d.Chunking != nil {
			e.p, e.err = harness.PrepareWith(ds, d.Chunking)
		} else {
			e.p, e.err = harness.Prepare(ds, chunk.DefaultOptions())
		}
		if e.err != nil {
			return
		}
		if sum, err := leakage.SummaryLine(ds); err != nil {
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
