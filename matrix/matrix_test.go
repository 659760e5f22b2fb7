package matrix

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/internal/rss"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/systemstest"
)

// prepared is a dataset of two corpora ("r1", "r2"), one task each, so
// that a cell builds two systems.
func prepared(t *testing.T) *harness.Prepared {
	t.Helper()
	ds := &datasets.Dataset{Name: "unit", Split: "all", Corpora: map[string]*corpus.Corpus{}}
	for _, r := range []string{"r1", "r2"} {
		ds.Corpora[r] = &corpus.Corpus{ID: r, Docs: []corpus.Doc{{ID: r + "/a", Path: "a.md", Kind: "doc", Text: "alpha"}}}
		ds.Tasks = append(ds.Tasks, datasets.Task{ID: r + "-t", Query: "alpha", CorpusID: r,
			Gold: []datasets.Relevant{{Kind: "doc", ID: r + "/a", Grade: 1}}})
	}
	p, err := harness.Prepare(ds, chunk.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runConfig(t *testing.T) harness.RunConfig {
	cfg := harness.DefaultRunConfig()
	cfg.CacheDir = t.TempDir()
	return cfg
}

// spec builds the systems newSys returns, one per corpus, in order.
func spec(name string, newSys func(i int) (systems.System, error)) systems.Spec {
	i := 0
	return systems.Spec{System: "double", Config: name, Hash: name, New: func(systems.Options) (systems.System, error) {
		i++
		return newSys(i - 1)
	}}
}

// TestPeakOfProcessesChosen: a system that runs processes of its own is
// charged the largest peak they report — one known only after Close
// included — over every corpus's system, not the runner's.
func TestPeakOfProcessesChosen(t *testing.T) {
	made := []*systemstest.Factful{
		{Peak: 300 << 20},
		{Peak: 650 << 20, AtClose: 50 << 20}, // 700 MiB once reaped
	}
	o := Run(t.Context(), prepared(t), spec("procs", func(i int) (systems.System, error) { return made[i], nil }), runConfig(t))
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if !o.Processes || o.PeakRSS != 700<<20 {
		t.Errorf("PeakRSS = %d MiB (processes %v), want the processes' largest, 700 MiB, after Close", o.PeakRSS>>20, o.Processes)
	}
	for i, f := range made {
		if !f.Closed {
			t.Errorf("system %d not closed", i)
		}
	}
}

// TestPeakOfRunner: an in-process system is charged the runner's own
// high-water mark, reset before the cell: below a peak the process reached
// before the cell, at most the mark read after it.
func TestPeakOfRunner(t *testing.T) {
	if _, err := rss.Peak(); errors.Is(err, rss.ErrUnsupported) {
		t.Skipf("SKIP: %v", err)
	}
	// Touch 128 MiB and let it go: the process's mark includes it.
	buf := make([]byte, 128<<20)
	for i := range buf {
		buf[i] = 1
	}
	runtime.KeepAlive(buf)
	buf = nil
	before, err := rss.Peak()
	if err != nil {
		t.Fatal(err)
	}
	o := Run(t.Context(), prepared(t), spec("plain", func(int) (systems.System, error) { return &systemstest.Script{}, nil }), runConfig(t))
	after, err := rss.Peak()
	if err != nil {
		t.Fatal(err)
	}
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Processes {
		t.Error("Processes = true for a system that runs none")
	}
	if o.PeakRSS == 0 || o.PeakRSS > after {
		t.Errorf("PeakRSS = %d, want the runner's mark: in (0, %d] (the mark read after the cell)", o.PeakRSS, after)
	}
	if o.ResetFailed {
		t.Skipf("SKIP: the kernel refused the reset (/proc/self/clear_refs): the mark is the process's, %d MiB", o.PeakRSS>>20)
	}
	if o.PeakRSS > before-64<<20 {
		t.Errorf("PeakRSS = %d MiB, want well below the %d MiB the process peaked at before the cell (reset)", o.PeakRSS>>20, before>>20)
	}
}

// TestDimensionProbedOnce: the first system built that measures its
// vectors is asked once, after its Index and before any search; later
// systems of the cell are not asked.
func TestDimensionProbedOnce(t *testing.T) {
	made := []*systemstest.Vectors{{Dim: 384}, {Dim: 100}}
	var seen []systems.System
	cfg := runConfig(t)
	cfg.Indexed = func(_ context.Context, s systems.System) { seen = append(seen, s) } // a caller's own hook still runs
	o := Run(t.Context(), prepared(t), spec("vectors", func(i int) (systems.System, error) { return made[i], nil }), cfg)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Dimension != 384 || o.DimensionErr != nil {
		t.Errorf("Dimension = %d (%v), want the first system's, 384", o.Dimension, o.DimensionErr)
	}
	if made[0].Probes != 1 || made[0].IndexedAtProbe != 1 || len(made[0].Depths) != 1 {
		t.Errorf("first system: %d probes after %d Index calls, %d searches; want 1 probe after its Index, then its search",
			made[0].Probes, made[0].IndexedAtProbe, len(made[0].Depths))
	}
	if made[1].Probes != 0 {
		t.Errorf("second system probed %d times, want 0: the cell probes once", made[1].Probes)
	}
	if len(seen) != 2 {
		t.Errorf("the caller's Indexed hook saw %d systems, want 2", len(seen))
	}

	// A failing probe is the outcome's DimensionErr, not the cell's: the
	// cell runs on, and nothing else is probed.
	bad := []*systemstest.Vectors{{ProbeErr: errors.New("no model loaded")}, {Dim: 100}}
	o = Run(t.Context(), prepared(t), spec("bad-probe", func(i int) (systems.System, error) { return bad[i], nil }), runConfig(t))
	if o.Err != nil || o.DimensionErr == nil || o.Dimension != 0 || bad[1].Probes != 0 {
		t.Errorf("failing probe: err %v, dimension %d (%v), second system probed %d times; want nil, 0 (no model loaded), 0",
			o.Err, o.Dimension, o.DimensionErr, bad[1].Probes)
	}

	// No system measures vectors: nothing probed, no dimension.
	o = Run(t.Context(), prepared(t), spec("plain", func(int) (systems.System, error) { return &systemstest.Script{}, nil }), runConfig(t))
	if o.Dimension != 0 || o.DimensionErr != nil {
		t.Errorf("Dimension = %d (%v) for systems without vectors, want 0", o.Dimension, o.DimensionErr)
	}
}

// TestFailingCell: a constructor that fails or panics, or an Index that
// fails, is the outcome's error, not a panic; nothing is probed.
func TestFailingCell(t *testing.T) {
	for _, tc := range []struct {
		name   string
		newSys func(int) (systems.System, error)
		want   string
	}{
		{"new fails", func(int) (systems.System, error) { return nil, errors.New("model file is corrupt") }, "creating system: model file is corrupt"},
		{"new panics", func(int) (systems.System, error) { panic("nil map") }, "panic: nil map"},
		{"index fails", func(int) (systems.System, error) {
			return &systemstest.Vectors{Script: systemstest.Script{IndexErr: errors.New("disk full")}, Dim: 8}, nil
		}, "indexing corpus r1: disk full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Run(t.Context(), prepared(t), spec(strings.ReplaceAll(tc.name, " ", "-"), tc.newSys), runConfig(t))
			if o.Err == nil || !strings.Contains(o.Err.Error(), tc.want) {
				t.Fatalf("Err = %v, want one saying %q", o.Err, tc.want)
			}
			if o.Dimension != 0 || o.DimensionErr != nil {
				t.Errorf("Dimension = %d (%v), want none: no system indexed", o.Dimension, o.DimensionErr)
			}
		})
	}
}
