package benchtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/goldenfmt"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/matrix"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
	"github.com/retrievalbench/retrievalbench/systems"
)

// Suite is what a benchmark test runs: systems, where their baselines live,
// and the run's flags.
type Suite struct {
	// Systems are measured in order, grouped by Spec.System.
	Systems []systems.Spec
	// Golden is the directory of golden files, one per
	// dataset/split/system/config (relative to the test's package directory).
	Golden string
	// Flags are the run's switches (NewFlags); nil means DefaultFlags.
	Flags *Flags
	// Package is how `go test` names the package in the commands printed on
	// failure ("./bench"); "" prints "go test -run …" for the current one.
	Package string
	// Config tunes every run (depth, timeouts, measures); the zero value
	// means harness.DefaultRunConfig.
	Config harness.RunConfig
}

func (s *Suite) flags() *Flags {
	if s.Flags == nil {
		return DefaultFlags()
	}
	return s.Flags
}

func (s *Suite) runConfig(t testing.TB) harness.RunConfig {
	cfg := s.Config
	if cfg.Depth == 0 {
		cfg = harness.DefaultRunConfig()
	}
	cfg.CacheDir = testenv.CacheDir()
	cfg.Logf = t.Logf
	if cfg.Tokens == nil {
		if tk, err := loadTokenizer(s.flags().Tokenizer); err != nil {
			if testenv.Required(testenv.Tokenizer) {
				t.Fatalf("token measures: %v", err)
			}
			t.Logf("token measures off: %v (RETRIEVALBENCH_REQUIRE=tokenizer makes this fail)", err)
		} else if tk != nil {
			cfg.Tokens = tk
		}
	}
	if n := s.flags().Slow; n > 1 {
		cfg.TaskTimeout *= time.Duration(n)
		cfg.AbandonWait *= time.Duration(n)
	}
	return cfg
}

// Test runs every system of s on every dataset of f, as subtests
// system/config/dataset of t, each checked against its golden file. A failing cell
// fails only itself; the other cells still run.
func Test(t *testing.T, s Suite, f catalogue.Family) {
	for _, sp := range s.Systems {
		if err := sp.Validate(); err != nil {
			t.Fatalf("suite: %v", err)
		}
	}
	// Count only the cells -run and -skip leave, so that progress reads
	// "cell 2 of 5" under a pattern.
	pl, err := s.plan(&testPlanner, f, testSelection(), func(k matrix.Key) string {
		return t.Name() + "/" + k.System + "/" + k.Config + "/" + k.Dataset
	}, s.command)
	if err != nil {
		t.Fatal(err)
	}
	if pl.note != "" {
		t.Log(pl.note)
	}
	t.Cleanup(func() {
		if line := s.missingLine(t.Name(), s.flags()); line != "" {
			t.Log(line)
		}
	})
	sh := pl.Shard
	for _, sys := range pl.systems {
		t.Run(sys, func(t *testing.T) {
			for _, spec := range pl.configs[sys] {
				t.Run(spec.Config, func(t *testing.T) {
					for _, c := range pl.cellsOf(spec) {
						t.Run(c.Key.Dataset, func(t *testing.T) {
							switch {
							case c.Skip.Kind == matrix.SkipUnsupported:
								skipUnsupported(t, spec, c.Skip.Why)
							case !pl.Mine(*c):
								t.Skipf("shard %s: this cell runs in shard %d/%d", sh, c.Part, sh.N)
							}
							t.Logf("cell %d of %d: %s/%s/%s", c.N, pl.Total, f.Name, spec.Name(), c.Key.Dataset)
							runCell(t, &s, f, pl.dataset(c), c)
						})
					}
				})
			}
		})
	}
}

// onFamily keeps the specs that have a cell on some dataset of f, one
// that runs or one that skips as unsupported.
func onFamily(specs []systems.Spec, f catalogue.Family) []systems.Spec {
	var out []systems.Spec
	for _, s := range specs {
		for _, d := range f.Datasets {
			if s.Bench.HasCell(f.Name, d.Name) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// bySystem groups specs by system name, keeping their order.
func bySystem(specs []systems.Spec) ([]string, map[string][]systems.Spec) {
	var order []string
	by := map[string][]systems.Spec{}
	for _, s := range specs {
		if _, ok := by[s.System]; !ok {
			order = append(order, s.System)
		}
		by[s.System] = append(by[s.System], s)
	}
	return order, by
}

func runCell(t *testing.T, s *Suite, f catalogue.Family, d catalogue.Dataset, c *matrix.Cell) {
	spec := c.Spec
	fl := s.flags()
	again := s.command(t.Name(), fl)
	if c.Skip.Kind == matrix.SkipHeavy || c.Skip.Kind == matrix.SkipFixturesOnly {
		// A baseline made for this cell once stays its own (not an orphan).
		p := Prepare(t, fl, f.Name, d)
		skipByDesign(t, s, p, spec, c.Skip.Why)
	}
	cfg := s.runConfig(t)
	if r := spec.Missing(cfg.CacheDir); r != nil {
		testenv.Missing(t, r.Kind, r.Reason)
	}
	p := Prepare(t, fl, f.Name, d)
	if why := overBudget(spec, fl, docsOf(p), again); why != "" {
		skipByDesign(t, s, p, spec, why)
	}
	if spec.NoDocIDs != "" && pathless(p) {
		skipByDesign(t, s, p, spec, fmt.Sprintf("%s judges documents by id (its docs have no paths) and %s", d.Name, spec.NoDocIDs))
	}
	o := matrix.Run(t.Context(), p, spec, cfg)
	if o.Err != nil {
		t.Fatalf("%s on %s: %v", spec.Name(), d.Name, o.Err)
	}
	res := o.Result
	// The cell file's peak RSS (matrix.RSSMethod): 0, unknown, where the
	// kernel refuses the reset and the runner's mark is the process's.
	peakMB := 0.0
	if !o.ResetFailed || o.Processes {
		peakMB = float64(o.PeakRSS) / (1 << 20)
	}
	t.Log(summaryLine(res, p))
	// The golden check names a failed task by its error's first line; the whole
	// error (an external peer's stderr tail) goes in the log, for a few.
	for i, ft := range res.Failed() {
		if i == maxFailedLogged {
			t.Logf("… and %d more failed tasks", len(res.Failed())-i)
			break
		}
		t.Logf("task %s failed: %s", ft.ID, ft.Err)
	}
	for _, line := range groupLines(res) {
		t.Log(line)
	}
	if fl.Results != "" {
		if err := writeResults(fl.Results, p, res, peakMB, keyOf(f, spec, d), o.Seconds); err != nil {
			t.Errorf("writing results: %v", err)
		}
	}
	path := goldenfmt.Path(s.Golden, res.Dataset, res.Split, spec.System, spec.Config)
	markRead(path)
	if fl.Update {
		writeBaseline(t, path, res, spec, "updated")
		return
	}
	g, err := goldenfmt.Read(path)
	if errors.Is(err, goldenfmt.ErrMissing) && fl.Create {
		writeBaseline(t, path, res, spec, "created")
		return
	}
	if err != nil {
		if errors.Is(err, goldenfmt.ErrMissing) {
			noteMissing(t.Name())
		}
		t.Fatalf("%v\ncreate it with: %s -update", err, again)
	}
	v := harness.CheckGolden(g, res, spec.Bench.Tolerance)
	for _, msg := range v.Failures {
		t.Error(msg)
	}
	if !v.OK() {
		if v.CPU != "" {
			t.Log(v.CPU)
		}
		if len(v.Versions) > 0 {
			t.Logf("versions differ from the baseline's: %s", strings.Join(v.Versions, "; "))
		}
		t.Logf("golden: %s; if the change is intended, run: %s -update", path, again)
	}
	for _, ex := range v.Excused {
		t.Logf("passed on CPU class %s: %s", res.CPUClass, ex)
	}
	if len(v.Unchecked) > 0 {
		t.Logf("token measures of the golden not checked (this run counted no tokens): %s", strings.Join(v.Unchecked, ", "))
	}
	for _, imp := range v.Improvements {
		t.Logf("improved %s — to raise the baseline run: %s -update", imp, again)
	}
}

// writeBaseline writes the golden file of a cell from its run (-update,
// -create), unless a task failed.
func writeBaseline(t *testing.T, path string, res *harness.Result, spec systems.Spec, verb string) {
	t.Helper()
	if failed := res.Failed(); len(failed) > 0 {
		t.Fatalf("not writing %s: %d tasks failed, first %s: %s", path, len(failed), failed[0].ID, failed[0].Err)
	}
	now := harness.NewGolden(res, spec.Bench.Tolerance, spec.Bench.ToleranceReason)
	old, err := goldenfmt.Read(path)
	if err != nil && !errors.Is(err, goldenfmt.ErrMissing) {
		t.Logf("replacing %s: %v", path, err)
	}
	g := goldenfmt.Merge(old, now)
	if err := goldenfmt.Write(path, g); err != nil {
		t.Fatal(err)
	}
	if g != now {
		t.Logf("%s %s for CPU class %s (the main baseline is %s's; classes with a baseline of their own: %s)",
			verb, path, now.CPUClass, g.CPUClass, strings.Join(sortedClasses(g), ", "))
	} else {
		t.Logf("%s %s", verb, path)
	}
}

// maxFailedLogged is how many failed tasks of a cell have their whole
// error logged.
const maxFailedLogged = 3

// byDesign says why the cell of spec on dataset d of family f does not run
// at this size (the zero Skip when it runs); again is the command that
// runs the cell alone, which the reason names so that a skipped cell is
// one command away. A data-pack dataset at -size=fixture skips when
// Prepare finds it is one (matrix.SkipSize).
func byDesign(spec systems.Spec, fl *Flags, f catalogue.Family, d catalogue.Dataset, again string) matrix.Skip {
	switch {
	case fl.Size == SizeFull || d.Hermetic:
		return matrix.Skip{}
	case spec.Bench.FixturesOnly && !fl.Heavy:
		return matrix.Skip{Kind: matrix.SkipFixturesOnly, Why: fmt.Sprintf("%s is slow enough to run on the fixtures only at -size=%s unless asked. Run this cell with: %s -heavy", spec.Name(), fl.Size, again)}
	case spec.Bench.Heavy && !f.HeavyAtSmall && !fl.Heavy:
		return matrix.Skip{Kind: matrix.SkipHeavy, Why: fmt.Sprintf("%s is a heavy config; at -size=%s it runs on the fixtures and the families that allow it (RepoQA) unless asked. "+
			"Run this cell with: %s -heavy", spec.Name(), fl.Size, again)}
	case fl.Size == SizeFixture:
		return matrix.Skip{Kind: matrix.SkipSize, Why: sizeFixtureSkip}
	}
	return matrix.Skip{}
}

// sizeFixtureSkip is why a data-pack dataset's cell skips at
// -size=fixture (Prepare).
const sizeFixtureSkip = "-size=fixture runs hermetic fixtures only"

// overBudget says why a config held to spec.Bench.MaxDocs does not index a
// dataset of docs documents ("" when it does): -heavy lifts the limit.
func overBudget(spec systems.Spec, fl *Flags, docs int, again string) string {
	if spec.Bench.MaxDocs <= 0 || docs <= spec.Bench.MaxDocs || fl.Heavy {
		return ""
	}
	return fmt.Sprintf("%s indexes at most %d docs a cell unless asked (%s); this dataset has %d. Run this cell with: %s -heavy",
		spec.Name(), spec.Bench.MaxDocs, spec.Bench.MaxDocsReason, docs, again)
}

// docsOf is how many documents a system indexes for p: every chunk of
// every corpus.
func docsOf(p *harness.Prepared) int {
	n := 0
	for _, c := range p.Corpora {
		n += len(c.Docs)
	}
	return n
}

// pathless reports whether a corpus of p has a doc without a path: a
// collection judged by doc id.
func pathless(p *harness.Prepared) bool {
	for _, c := range p.Corpora {
		for _, d := range c.Docs {
			if d.Path == "" {
				return true
			}
		}
	}
	return false
}

// skipByDesign skips a cell that does not run at this size (why says why
// and how to run it), keeping its golden file, if one was made, as read.
func skipByDesign(t *testing.T, s *Suite, p *harness.Prepared, spec systems.Spec, why string) {
	t.Helper()
	golden := goldenfmt.Path(s.Golden, p.Dataset.Name, p.Dataset.Split, spec.System, spec.Config)
	markRead(golden)
	if _, err := os.Stat(golden); err != nil && (spec.Bench.Heavy || spec.Bench.FixturesOnly || spec.Bench.MaxDocs > 0) {
		why += " -update (it has no baseline yet: " + golden + ")"
	}
	t.Skip("SKIP (by design): " + why)
}

// skipUnsupported skips the cell of a dataset spec cannot do
// (Spec.Bench.Unsupported), with its reason. The skip is by design: it
// runs nowhere, and RETRIEVALBENCH_REQUIRE, which is about what a machine
// lacks, does not turn it into a failure.
func skipUnsupported(t testing.TB, spec systems.Spec, why string) {
	t.Helper()
	t.Skip("SKIP (unsupported): " + spec.Name() + " " + why)
}

// command is the go test command that runs the named test alone at this
// run's size and split.
func (s *Suite) command(name string, f *Flags) string {
	pkg := ""
	if s.Package != "" {
		pkg = " " + s.Package
	}
	return fmt.Sprintf("go test%s -run '%s'%s", pkg, RunPattern(name), f.hint())
}

// benchCommand is the go test command that runs the named benchmark alone
// at this run's size and split.
func (s *Suite) benchCommand(name string, f *Flags) string {
	pkg := ""
	if s.Package != "" {
		pkg = " " + s.Package
	}
	return fmt.Sprintf("go test%s -run '^$' -bench '%s'%s", pkg, RunPattern(name), f.hint())
}

// RunPattern turns a test name into a -run pattern that selects exactly it.
func RunPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

func summaryLine(res *harness.Result, p *harness.Prepared) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s[%s] %s/%s: %d tasks", res.Dataset, res.Split, res.System, res.Config, len(res.Tasks))
	for _, m := range res.Measures {
		col, _ := res.Column(m.String())
		if len(col) > 0 {
			fmt.Fprintf(&b, " %s=%.4f", m, metrics.Mean(col))
		}
	}
	fmt.Fprintf(&b, "; index %d docs in %v", res.IndexedDocs, res.IndexTime.Round(1e6))
	if n := len(p.Dataset.Dropped); n > 0 {
		fmt.Fprintf(&b, "; %d source rows dropped", n)
	}
	return b.String()
}

// groupLines breaks the cell's first measures down by each task facet that
// takes more than one value (repository, intent, library, qa_type,
// difficulty, naming): per group the mean with its 95% bootstrap CI, then the macro
// mean (every group weighs the same).
func groupLines(res *harness.Result) []string {
	if len(res.Measures) == 0 {
		return nil
	}
	facets := []struct {
		name string
		of   func(t *harness.TaskResult) string
	}{
		{"repo", func(t *harness.TaskResult) string { return t.Meta.Repo }},
		{"intent", func(t *harness.TaskResult) string { return t.Meta.Intent }},
		{"library", func(t *harness.TaskResult) string { return t.Meta.Library }},
		{"qa_type", func(t *harness.TaskResult) string { return t.Meta.QAType }},
		{"difficulty", func(t *harness.TaskResult) string { return t.Meta.Difficulty }},
		{"naming", func(t *harness.TaskResult) string { return t.Meta.Naming }},
	}
	var lines []string
	for _, fc := range facets {
		groups := map[string][]int{}
		for i := range res.Tasks {
			if k := fc.of(&res.Tasks[i]); k != "" {
				groups[k] = append(groups[k], i)
			}
		}
		if len(groups) < 2 {
			continue
		}
		keys := make([]string, 0, len(groups))
		for k := range groups {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for mi, m := range res.Measures {
			if mi >= 2 {
				break // the first two measures; every value is in -results
			}
			var b strings.Builder
			fmt.Fprintf(&b, "by %s, %s:", fc.name, m)
			means := make([]float64, 0, len(keys))
			for _, k := range keys {
				col := make([]float64, 0, len(groups[k]))
				for _, i := range groups[k] {
					col = append(col, res.Tasks[i].Values[mi])
				}
				ci := metrics.DefaultStats().CI(col)
				means = append(means, ci.Mean)
				fmt.Fprintf(&b, " %s=%.4f [%.4f, %.4f] (n=%d)", k, ci.Mean, ci.Low, ci.High, len(col))
			}
			fmt.Fprintf(&b, "; macro %.4f", metrics.Mean(means))
			lines = append(lines, b.String())
		}
	}
	return lines
}

// writeResults writes the cell's per-task records in the report package's
// canonical format, so "retrievalbench report -results DIR" reads test runs
// and campaigns alike.
//
// Next to them goes the cell's cost file (index time, docs, peak RSS in MiB,
// 0 when unknown; hashes and versions) that the leaderboard reads; its
// commit is $RETRIEVALBENCH_COMMIT (make results sets it); name
// (family/system/config/dataset) and seconds (the cell's wall time) are
// what -shard-costs balances a sharded run by.
func writeResults(dir string, p *harness.Prepared, res *harness.Result, peakMB float64, key matrix.Key, seconds float64) error {
	kinds := map[string]string{}
	for _, c := range p.Corpora {
		for _, d := range c.Docs {
			kinds[d.ID] = d.Kind
		}
	}
	file := filepath.Join(dir, resultfmt.RecordsFileName(res.Dataset, res.Split, res.System, res.Config))
	if err := resultfmt.WriteRecords(file, res.Records(kinds, true)); err != nil {
		return err
	}
	cell := filepath.Join(dir, resultfmt.CellFileName(res.Dataset, res.Split, res.System, res.Config))
	c := res.Cell(peakMB, os.Getenv("RETRIEVALBENCH_COMMIT"))
	c.Cell, c.Seconds = key.String(), seconds
	return resultfmt.WriteCell(cell, c)
}

// read records the golden files the cells of this binary read, for Orphans.
var read = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

func markRead(path string) {
	read.Lock()
	read.m[filepath.Clean(path)] = true
	read.Unlock()
}

// sortedClasses lists the CPU classes of g's ByCPUClass entries.
func sortedClasses(g *goldenfmt.Golden) []string {
	out := make([]string, 0, len(g.ByCPUClass))
	for c := range g.ByCPUClass {
		out = append(out, c)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}
