package leaderboard

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrievalbench/retrievalbench/leaderboard/boardtest"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// The constructed boards (package boardtest), by their old local names.
type system = boardtest.System

var (
	records         = boardtest.Records
	fixtureBoard    = boardtest.Board
	modelFixture    = boardtest.ModelBoard
	languageFixture = boardtest.Languages
)

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func TestBuild(t *testing.T) {
	recs, cells := fixtureBoard()
	b, err := Build(recs, cells, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(b.Datasets), 2; got != want {
		t.Fatalf("%d datasets, want %d", got, want)
	}
	a := b.Datasets[0]
	if a.Key != "alpha.small" || a.Primary != "ndcg@10" || a.Cases != 60 {
		t.Errorf("dataset = %s primary %s cases %d; want alpha.small, ndcg@10, 60", a.Key, a.Primary, a.Cases)
	}
	if diff := cmp.Diff([]string{"hit@1", "ndcg@10"}, a.Measures); diff != "" {
		t.Errorf("measures (-want +got):\n%s", diff)
	}
	var order []string
	for _, r := range a.Rows {
		order = append(order, r.Model)
	}
	if diff := cmp.Diff([]string{"bm25/code", "bm25/porter", "dense/small"}, order); diff != "" {
		t.Errorf("ranking (-want +got):\n%s", diff)
	}
	// Independent reference: the plain means of the constructed values.
	cols := map[string][]float64{}
	for _, r := range recs {
		if r.Dataset == "alpha" {
			cols[r.Model()] = append(cols[r.Model()], r.Values["ndcg@10"])
		}
	}
	for _, r := range a.Rows {
		want := mean(cols[r.Model])
		s := r.Scores["ndcg@10"]
		if math.Abs(float64(s.Mean)-want) > 5e-5 {
			t.Errorf("%s ndcg@10 mean %v, want %.4f", r.Model, s.Mean, want)
		}
		if !(s.Low <= s.Mean && s.Mean <= s.High) || s.Low == s.High {
			t.Errorf("%s CI [%v, %v] does not bracket mean %v", r.Model, s.Low, s.High, s.Mean)
		}
	}
	if a.Rows[0].VsBest != nil {
		t.Errorf("the best row has a paired test against itself: %+v", a.Rows[0].VsBest)
	}
	porter, dense := a.Rows[1].VsBest, a.Rows[2].VsBest
	if porter == nil || dense == nil {
		t.Fatalf("paired tests missing: porter %v dense %v", porter, dense)
	}
	for _, c := range []struct {
		name string
		p    *Paired
		sig  bool
	}{{"bm25/porter", porter, false}, {"dense/small", dense, true}} {
		want := mean(cols[c.name]) - mean(cols["bm25/code"])
		if math.Abs(float64(c.p.Diff)-want) > 5e-5 {
			t.Errorf("%s Δ = %v, want %.4f", c.name, c.p.Diff, want)
		}
		if c.p.N != 60 || c.p.Significant != c.sig {
			t.Errorf("%s: n %d significant %v (p %v); want n 60, significant %v", c.name, c.p.N, c.p.Significant, c.p.PPermutation, c.sig)
		}
	}
	if a.Rows[0].Cell == nil || a.Rows[0].Cell.IndexSeconds != 1.25 || a.Rows[1].Cell != nil || !a.Costs {
		t.Errorf("cells attached wrongly: %+v %+v", a.Rows[0].Cell, a.Rows[1].Cell)
	}
	if b.Datasets[1].Costs {
		t.Error("beta has no cell file but claims costs")
	}
}

func TestBuildErrors(t *testing.T) {
	if _, err := Build(nil, nil, DefaultConfig()); err == nil {
		t.Error("Build accepted no records")
	}
	recs, _ := fixtureBoard()
	recs[0].Values["nonsense@x"] = 1
	if _, err := Build(recs, nil, DefaultConfig()); err == nil || !strings.Contains(err.Error(), "alpha.small") {
		t.Errorf("unknown measure: err = %v, want one naming the dataset", err)
	}
}

func TestMarkdown(t *testing.T) {
	recs, cells := fixtureBoard()
	cfg := DefaultConfig()
	cfg.Commit = "abc123"
	b, err := Build(recs, cells, cfg)
	if err != nil {
		t.Fatal(err)
	}
	idx := b.Markdown()
	for _, want := range []string{"[alpha.small](alpha.small/index.md)", "[beta.all](beta.all/index.md)", "commit abc123", "| alpha | small | 60 | 3 | ndcg@10 | bm25/code |"} {
		if !strings.Contains(idx, want) {
			t.Errorf("index.md lacks %q:\n%s", want, idx)
		}
	}
	page := b.DatasetMarkdown(b.Datasets[0])
	if n := strings.Count(page, "\n| "); n != 2+3 {
		t.Errorf("alpha page has %d table lines, want header, separator and 3 rows:\n%s", n, page)
	}
	for _, want := range []string{"| 1 | bm25/code | ok |", "| best |", "| 4.00 | 6.00 | 1.25 | 80.0 |", "| 1.25 | 80.0 |", "| — | — |", " * |", "plots/pareto.svg", "plots/timing.png"} {
		if !strings.Contains(page, want) {
			t.Errorf("alpha page lacks %q:\n%s", want, page)
		}
	}
	if beta := b.DatasetMarkdown(b.Datasets[1]); !strings.Contains(beta, "not recorded") {
		t.Errorf("beta page does not say index time and RSS are not recorded:\n%s", beta)
	}
}

// tree reads every file under dir, keyed by slash path.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sketch stands in for report/plots.Write, which this package's tests do
// not link (a module that imports the leaderboard gets no plotting library
// in its go.sum, tests included): it writes each figure's name as its
// SVG and PNG. figtest checks the real figures.
func sketch(dir string, s *report.Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range s.PlotFiles() {
		for _, ext := range []string{".svg", ".png"} {
			if err := os.WriteFile(filepath.Join(dir, f+ext), []byte(f+ext), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestWriteWithoutFigures: without a Draw the pages name no figure and
// say why, and no plots/ directory is written.
func TestWriteWithoutFigures(t *testing.T) {
	recs, cells := fixtureBoard()
	b, err := Build(recs, cells, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Write(dir, b, nil); err != nil {
		t.Fatal(err)
	}
	files := tree(t, dir)
	for name := range files {
		if strings.Contains(name, "plots/") {
			t.Errorf("%s written without a Draw", name)
		}
	}
	if html := string(files["index.html"]); strings.Contains(html, "<img ") || !strings.Contains(html, `data-figures="0"`) {
		t.Error("index.html shows figures that were not drawn")
	}
	md := string(files["alpha.small/index.md"])
	if strings.Contains(md, "plots/") || !strings.Contains(md, "No figures: written without them") {
		t.Errorf("alpha.small/index.md:\n%s", md)
	}
}

func TestWriteIsByteIdentical(t *testing.T) {
	recs, cells := fixtureBoard()
	var trees []map[string][]byte
	for range 2 {
		b, err := Build(recs, cells, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := Write(dir, b, sketch); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, tree(t, dir))
	}
	a, b := trees[0], trees[1]
	for _, want := range []string{"index.md", "index.html", "leaderboard.json", "alpha.small/index.md", "beta.all/index.md",
		"alpha.small/plots/pareto.svg", "alpha.small/plots/pareto.png", "alpha.small/plots/timing.svg", "alpha.small/plots/score-ndcg-10.png",
		"alpha.small/plots/score-hit-1.svg", "beta.all/plots/timing.png"} {
		if len(a[want]) == 0 {
			t.Errorf("%s missing or empty", want)
		}
	}
	if len(a) != len(b) {
		t.Errorf("runs wrote %d and %d files", len(a), len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("%s differs between two runs on the same records", name)
		}
	}
	if t.Failed() {
		return
	}
	html := string(a["index.html"])
	for _, bad := range []string{"<link", "src=\"http", "src=\"//", "@import", "url(", "@font-face"} {
		if strings.Contains(html, bad) {
			t.Errorf("index.html is not self-contained: it has %q", bad)
		}
	}
	if got, want := strings.Count(html, "<img "), 2*4; got != want {
		t.Errorf("index.html has %d figures, want %d (per dataset: score figures of ndcg@10 and hit@1, timing, pareto)", got, want)
	}
}

// A hosted documentation system's cells also record library_resolution@1,
// a measure the harness computes outside package metrics: the board keeps
// it as a column after the trec_eval measures, with its plain mean.
func TestBuildKeepsOtherRecordedMeasures(t *testing.T) {
	recs, _ := fixtureBoard()
	var want []float64
	for i := range recs {
		if recs[i].Dataset == "alpha" && recs[i].Model() == "bm25/code" {
			v := float64(i % 2)
			recs[i].Values["library_resolution@1"] = v
			want = append(want, v)
		}
	}
	b, err := Build(recs, nil, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	a := b.Datasets[0]
	if diff := cmp.Diff([]string{"hit@1", "ndcg@10", "library_resolution@1"}, a.Measures); diff != "" {
		t.Errorf("measures (-want +got):\n%s", diff)
	}
	for _, r := range a.Rows {
		s, ok := r.Scores["library_resolution@1"]
		if r.Model != "bm25/code" {
			if ok {
				t.Errorf("%s does not record library_resolution@1 but its row has %v", r.Model, s)
			}
			continue
		}
		if got := float64(s.Mean); !ok || math.Abs(got-mean(want)) > 5e-5 {
			t.Errorf("library_resolution@1 mean %v (present %v), want %.4f", got, ok, mean(want))
		}
	}
	md := b.DatasetMarkdown(a)
	if !strings.Contains(md, "| library_resolution@1 |") {
		t.Errorf("the markdown table lacks the library_resolution@1 column:\n%s", md)
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.Contains(line, "| dense/small |") && !strings.Contains(line, "| — |") {
			t.Errorf("dense/small's row shows a library_resolution@1 it never recorded: %s", line)
		}
	}
}

// TestFailedRow: a cell whose every task failed (every record carries an
// error, and zero latency) is failed, comes after the rows that ran,
// unranked, with no score, latency or paired test, and Failed names it;
// a partial row keeps its count.
func TestFailedRow(t *testing.T) {
	recs, cells := fixtureBoard()
	dead := records("alpha", "small", 60, []system{{Model: "dense/dead", Hit: func(int) bool { return false }}})
	for i := range dead {
		dead[i].Error, dead[i].Hits, dead[i].LatencyMS = "model file missing", nil, 0
	}
	recs = append(dead, recs...)
	for i := range recs {
		if recs[i].Model() == "bm25/porter" && recs[i].Dataset == "alpha" && recs[i].Task < "t005" {
			recs[i].Error = "timeout"
		}
	}
	b, err := Build(recs, cells, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	a := b.Datasets[0]
	var got []string
	for _, r := range a.Rows {
		got = append(got, fmt.Sprintf("%d %s %s %d", r.Rank, r.Model, r.Status, r.Failed))
	}
	want := []string{"1 bm25/code ok 0", "2 bm25/porter partial 5", "3 dense/small ok 0", "0 dense/dead failed 60"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	last := a.Rows[3]
	if last.VsBest != nil || len(last.Scores) != 0 {
		t.Errorf("failed row has a paired test %+v or scores %v", last.VsBest, last.Scores)
	}
	page := b.DatasetMarkdown(a)
	for _, line := range []string{
		"| — | dense/dead | failed (60 failed) | — | — | — |  |  | — | — | — | — |",
		"| 2 | bm25/porter | partial (5 failed) |",
	} {
		if !strings.Contains(page, line) {
			t.Errorf("alpha page lacks %q:\n%s", line, page)
		}
	}
	if diff := cmp.Diff([]string{"alpha.small: dense/dead"}, b.Failed()); diff != "" {
		t.Errorf("Failed (-want +got):\n%s", diff)
	}
}

// TestHolmLeaderboard measures the spurious "significant" gaps of a
// 20-system leaderboard whose systems are all the same (every task's value
// drawn from one distribution), raw and with Holm's correction.
func TestHolmLeaderboard(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation: 40 leaderboards")
	}
	const boards, systems, tasks = 40, 20, 60
	cfg := DefaultConfig()
	cfg.Stats.Resamples = 500
	var raw, holm, rawAny, holmAny int
	rng := rand.New(rand.NewPCG(20, 25))
	for range boards {
		var recs []resultfmt.Record
		for s := range systems {
			for i := range tasks {
				v := rng.Float64()
				recs = append(recs, resultfmt.Record{Dataset: "null", Split: "small", System: "sys", Config: fmt.Sprintf("s%02d", s),
					Task: fmt.Sprintf("t%03d", i), Values: map[string]float64{"ndcg@10": v}, LatencyMS: 1})
			}
		}
		b, err := Build(recs, nil, cfg)
		if err != nil {
			t.Fatal(err)
		}
		r, h := 0, 0
		for _, row := range b.Datasets[0].Rows {
			if v := row.VsBest; v != nil {
				if v.PPermutation < Fixed(cfg.Stats.Alpha) {
					r++
				}
				if v.Significant {
					h++
				}
			}
		}
		raw, holm = raw+r, holm+h
		if r > 0 {
			rawAny++
		}
		if h > 0 {
			holmAny++
		}
	}
	t.Logf("%d null leaderboards of %d systems: %.2f spurious significant gaps per board raw (%d of %d boards have one), %.2f with Holm (%d boards)",
		boards, systems, float64(raw)/boards, rawAny, boards, float64(holm)/boards, holmAny)
	if raw == 0 || holm*4 > raw {
		t.Errorf("raw %d, Holm %d spurious gaps: Holm should remove most of them", raw, holm)
	}
}

// TestWarningsAndReuse: the warnings records and cell files carry reach
// the dataset page (counted in the status, listed under the table), and a
// reused index shows its original build time next to this run's.
func TestWarningsAndReuse(t *testing.T) {
	recs, cells := fixtureBoard()
	for i := range recs {
		if recs[i].Model() == "bm25/code" && recs[i].Dataset == "alpha" && recs[i].Task == "t007" {
			recs[i].Warnings = []string{"bm25/code: 1 of 1 hits named a path outside the corpus and match nothing (kept at their ranks)"}
		}
	}
	cells[0].IndexSeconds, cells[0].IndexReused, cells[0].IndexBuildSeconds = 0.02, 1, 12.5
	cells[0].Warnings = []string{"repo0: the tool skipped 2 files"}
	b, err := Build(recs, cells, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	page := b.DatasetMarkdown(b.Datasets[0])
	for _, want := range []string{
		"| 1 | bm25/code | ok (2 warnings) |",
		"| 0.02 (1 reused, built in 12.50) | 80.0 |",
		"## Warnings",
		"- bm25/code index: repo0: the tool skipped 2 files",
		"- bm25/code t007: bm25/code: 1 of 1 hits named a path outside the corpus",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("alpha page lacks %q:\n%s", want, page)
		}
	}
	if html := string(b.HTML(nil)); !strings.Contains(html, "<li>bm25/code index: repo0: the tool skipped 2 files</li>") {
		t.Errorf("index.html does not list the warnings")
	}
	if plain := b.DatasetMarkdown(b.Datasets[1]); strings.Contains(plain, "## Warnings") {
		t.Errorf("beta has no warnings but its page has the section:\n%s", plain)
	}
}

// TestBuildLowerPrimary: a primary measure whose Def says lower is better
// ranks the lowest mean first.
func TestBuildLowerPrimary(t *testing.T) {
	var recs []resultfmt.Record
	for i := range 10 {
		for _, s := range []struct {
			config string
			v      float64
		}{{"few", 1}, {"many", 4}} {
			recs = append(recs, resultfmt.Record{Dataset: "d", Split: "all", System: "x", Config: s.config, Task: fmt.Sprintf("t%d", i),
				Values: map[string]float64{"misses": s.v + float64(i%2)}})
		}
	}
	cfg := DefaultConfig()
	cfg.Primary = "misses"
	cfg.Defs = []*metrics.Def{{Name: "misses", Cut: metrics.WholeList, Lower: true}}
	b, err := Build(recs, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Datasets[0].Rows[0].Model; got != "x/few" {
		t.Errorf("first row %s, want x/few (fewer misses)", got)
	}
	cfg.Defs = nil // recorded without its Def: higher is better
	b, err = Build(recs, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Datasets[0].Rows[0].Model; got != "x/many" {
		t.Errorf("without the Def: first row %s, want x/many", got)
	}
}
