package leaderboard

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/datasets/repoqa"
	"github.com/retrievalbench/retrievalbench/leaderboard/boardtest"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// TestLanguageTable checks the macro averages against hand-computed ones:
// bm25/a's macro is (0.5 + 1.0 + 0.3) / 3 = 0.6 (its micro mean over the
// 11 tasks would be 5.5 / 11 = 0.5), without python (1.0 + 0.3) / 2 =
// 0.65, Δ +0.15; dense/b (no rust) and dense/c (go failed) get none.
func TestLanguageTable(t *testing.T) {
	cfg := DefaultConfig()
	f := RepoQALanguages()
	f.SmokeBelow = 0 // the fixture's 2 to 5 tasks per language
	cfg.Languages = []LanguageFamily{f}
	b, err := Build(languageFixture(), nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Languages) != 1 {
		t.Fatalf("%d language tables, want 1", len(b.Languages))
	}
	lt := b.Languages[0]
	if lt.Key != "repoqa-doc.small" || lt.Measure != "ndcg@10" || lt.Reference != "python" {
		t.Errorf("table %s measure %s reference %s", lt.Key, lt.Measure, lt.Reference)
	}
	if diff := cmp.Diff([]string{"python", "go", "rust"}, lt.Present); diff != "" {
		t.Errorf("present (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"cpp", "java", "typescript"}, lt.Absent); diff != "" {
		t.Errorf("absent (-want +got):\n%s", diff)
	}
	var order []string
	for _, r := range lt.Rows {
		order = append(order, r.Model)
	}
	if diff := cmp.Diff([]string{"bm25/a", "dense/b", "dense/c"}, order); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	a := lt.Rows[0]
	near := func(what string, got Fixed, want float64) {
		t.Helper()
		if math.Abs(float64(got)-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	if a.Macro == nil || a.Others == nil || a.Gap == nil {
		t.Fatalf("bm25/a is complete but lacks a macro: %+v", a)
	}
	near("bm25/a macro", a.Macro.Mean, 0.6)
	near("bm25/a macro without python", a.Others.Mean, 0.65)
	near("bm25/a Δ", a.Gap.Mean, 0.15)
	if !(a.Gap.Low < a.Gap.Mean && a.Gap.Mean < a.Gap.High) {
		t.Errorf("bm25/a Δ CI [%v, %v] does not bracket %v", a.Gap.Low, a.Gap.High, a.Gap.Mean)
	}
	near("bm25/a python", a.Scores["python"].Mean, 0.5)
	near("bm25/a rust", a.Scores["rust"].Mean, 0.3)
	if !(a.Macro.Low < a.Macro.Mean && a.Macro.Mean < a.Macro.High) {
		t.Errorf("bm25/a macro CI [%v, %v] does not bracket %v", a.Macro.Low, a.Macro.High, a.Macro.Mean)
	}
	for _, r := range lt.Rows[1:] {
		if r.Macro != nil || r.Others != nil || r.Gap != nil {
			t.Errorf("%s is incomplete (missing %v, failed %v) but has a macro %+v", r.Model, r.Missing, r.Failed, r.Macro)
		}
	}
	if diff := cmp.Diff([]string{"rust"}, lt.Rows[1].Missing); diff != "" {
		t.Errorf("dense/b missing (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"go"}, lt.Rows[2].Failed); diff != "" {
		t.Errorf("dense/c failed (-want +got):\n%s", diff)
	}

	md := b.Markdown()
	for _, want := range []string{
		"## RepoQA documentation → definition across languages (split small)",
		"| system/config | python | cpp | go | java | rust | typescript | macro (3 of 6 languages in the results) | macro without python | Δ without python − python (95% CI) |",
		"| bm25/a | 0.5000 [", "| — (not in the results) | 1.0000 [1.0000, 1.0000] |",
		"| +0.1500 [",
		"| dense/b | 0.7500 [",
		"| missing | — (not in the results) | — (missing rust) | — | — |",
		"| dense/c | 0.2500 [",
		"| failed | — (not in the results) | 1.0000 [1.0000, 1.0000] | — (not in the results) | — (failed go) | — | — |",
		"Not in these results: cpp, java, typescript",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("index.md lacks %q:\n%s", want, md)
		}
	}
	html := string(b.HTML(nil))
	for _, want := range []string{`<section id="repoqa-doc.small" class="languages" data-rows="3">`, `<tr class="incomplete"><td>dense/b</td>`, `<td data-v="0.6000">0.6000<span class="ci">[`} {
		if !strings.Contains(html, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	for i := range lt.Rows {
		if c, h, v := len(lt.Cells(i)), len(lt.Header()), 0; c != h {
			t.Errorf("row %d: %d cells for %d columns (%d)", i, c, h, v)
		}
	}
}

// TestLanguageTableNeedsTwo: one language of a family in the results is
// no comparison, and no table.
func TestLanguageTableNeedsTwo(t *testing.T) {
	var recs []resultfmt.Record
	for _, r := range languageFixture() {
		if r.Dataset != "repoqa-go-doc" && r.Dataset != "repoqa-rust-doc" {
			recs = append(recs, r)
		}
	}
	b, err := Build(recs, nil, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Languages) != 0 || strings.Contains(b.Markdown(), "across languages") {
		t.Errorf("a language table from python alone: %+v", b.Languages)
	}
}

// TestMacroStatOneColumn: over one language the stratified bootstrap is
// metrics.Bootstrap itself (the same generator and draws), and a constant
// column has a point interval.
func TestMacroStatOneColumn(t *testing.T) {
	col := []float64{1, 0, 0.5, 0.25, 1, 0, 0, 1, 0.75}
	got := macroStat([][]float64{col}, metrics.Stats{Resamples: 1000, Seed: 42})
	want := metrics.Bootstrap(col, 1000, 42)
	if float64(got.Mean) != want.Mean || float64(got.Low) != want.Low || float64(got.High) != want.High {
		t.Errorf("macroStat = %+v, metrics.Bootstrap = %+v", got, want)
	}
	flat := macroStat([][]float64{{0.5, 0.5}, {1, 1, 1}}, metrics.Stats{Resamples: 200, Seed: 1})
	if flat.Mean != 0.75 || flat.Low != 0.75 || flat.High != 0.75 {
		t.Errorf("constant columns: %+v, want 0.75 [0.75, 0.75]", flat)
	}
}

// TestRepoQALanguagesNames keeps the family's dataset names equal to
// package repoqa's.
func TestRepoQALanguagesNames(t *testing.T) {
	f := RepoQALanguages()
	want := []LanguageDataset{{"python", repoqa.NamePythonDocstring}}
	for _, l := range repoqa.DocLanguages() {
		want = append(want, LanguageDataset{l, repoqa.DocName(l)})
	}
	if diff := cmp.Diff(want, f.Datasets); diff != "" {
		t.Errorf("RepoQALanguages (-want +got):\n%s", diff)
	}
}

// TestLanguageTableSmoke: with the RepoQA families' SmokeBelow, the
// fixture's 2 to 5 tasks per language make smoke tests: each language's
// score, no macro, no gap, and the paragraph says why.
func TestLanguageTableSmoke(t *testing.T) {
	b, err := Build(languageFixture(), nil, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Languages) != 1 {
		t.Fatalf("%d language tables, want 1 (no masked go, no naming in the fixture)", len(b.Languages))
	}
	lt := b.Languages[0]
	if !lt.Smoke {
		t.Fatalf("%s is not a smoke test with cases %v", lt.Key, lt.Cases)
	}
	if diff := cmp.Diff([]string{"system/config", "python", "cpp", "go", "java", "rust", "typescript"}, lt.Header()); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	for i, r := range lt.Rows {
		if r.Macro != nil || r.Gap != nil || r.Others != nil {
			t.Errorf("%s has a comparison in a smoke test", r.Model)
		}
		if len(lt.Cells(i)) != len(lt.Header()) {
			t.Errorf("row %d: %d cells for %d columns", i, len(lt.Cells(i)), len(lt.Header()))
		}
	}
	md := b.Markdown()
	for _, want := range []string{"Smoke test, not a comparison of languages", "python 4, go 2, rust 5 tasks, fewer than 30"} {
		if !strings.Contains(md, want) {
			t.Errorf("index.md lacks %q", want)
		}
	}
	if strings.Contains(md, "macro (") {
		t.Errorf("a smoke test with a macro column:\n%s", md)
	}
}

// TestGapStat: the gap's interval is the percentile interval of the
// difference, every language's tasks drawn anew in each resample — here
// drawn by hand with Stratified's generator and order.
func TestGapStat(t *testing.T) {
	others := [][]float64{{1, 0, 0.5, 1, 1}, {0, 0, 1, 0.25}}
	ref := []float64{0.5, 0.5, 1, 0, 0, 1}
	st := metrics.Stats{Resamples: 2000, Seed: 7}
	got := gapStat(others, ref, st)
	wantMean := (metrics.Mean(others[0])+metrics.Mean(others[1]))/2 - metrics.Mean(ref)
	if math.Abs(float64(got.Mean)-wantMean) > 1e-4 {
		t.Errorf("gap %v, want %v", got.Mean, wantMean)
	}
	r := rand.New(rand.NewPCG(st.Seed, metrics.DefaultStream))
	diffs := make([]float64, st.Resamples)
	for i := range diffs {
		var ms []float64
		for _, g := range append(slices.Clone(others), ref) {
			sum := 0.0
			for range g {
				sum += g[r.IntN(len(g))]
			}
			ms = append(ms, sum/float64(len(g)))
		}
		diffs[i] = (ms[0]+ms[1])/2 - ms[2]
	}
	slices.Sort(diffs)
	q := func(p float64) float64 {
		pos := p * float64(len(diffs)-1)
		lo := int(math.Floor(pos))
		hi := min(lo+1, len(diffs)-1)
		return diffs[lo] + (pos-float64(lo))*(diffs[hi]-diffs[lo])
	}
	if math.Abs(float64(got.Low)-q(0.025)) > 1e-4 || math.Abs(float64(got.High)-q(0.975)) > 1e-4 {
		t.Errorf("gap CI [%v, %v], by hand [%v, %v]", got.Low, got.High, q(0.025), q(0.975))
	}
	if !(got.Low < got.Mean && got.Mean < got.High) {
		t.Errorf("gap CI [%v, %v] does not bracket %v", got.Low, got.High, got.Mean)
	}
}

// TestLanguageTableNaming: the unnamed family counts only the tasks whose
// records say naming "none", scores them on those alone, and takes Go
// from its masked dataset.
func TestLanguageTableNaming(t *testing.T) {
	var recs []resultfmt.Record
	add := func(ds, model string, vs []float64, naming []string) {
		rs := boardtest.LangRecords(ds, model, vs, false)
		for i := range rs {
			rs[i].Naming = naming[i]
		}
		recs = append(recs, rs...)
	}
	// python: the two unnamed tasks score 1 and 0 (mean 0.5); go masked:
	// the one unnamed task scores 0.
	add("repoqa-python-docstring", "bm25/a", []float64{1, 0, 1, 1}, []string{"none", "none", "exact", "parts"})
	add("repoqa-go-doc-masked", "bm25/a", []float64{1, 0}, []string{"exact", "none"})
	add("repoqa-go-doc", "bm25/a", []float64{1, 1}, []string{"exact", "exact"})
	cfg := DefaultConfig()
	for i := range cfg.Languages {
		cfg.Languages[i].SmokeBelow = 0
	}
	b, err := Build(recs, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var un *LanguageTable
	for _, lt := range b.Languages {
		keys = append(keys, lt.Key)
		if lt.Family == "repoqa-doc-unnamed" {
			un = lt
		}
	}
	if diff := cmp.Diff([]string{"repoqa-doc.small", "repoqa-doc-masked.small", "repoqa-doc-unnamed.small"}, keys); diff != "" {
		t.Fatalf("tables (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"python": 2, "go": 1}, un.Cases); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	a := un.Rows[0]
	if a.Scores["python"].Mean != 0.5 || a.Scores["go"].Mean != 0 || a.Gap == nil || a.Gap.Mean != -0.5 {
		t.Errorf("unnamed scores %+v, gap %+v; want python 0.5, go 0, gap -0.5", a.Scores, a.Gap)
	}
	if !strings.Contains(b.Markdown(), `naming "none"`) {
		t.Errorf("the unnamed table does not say what it counts")
	}
}
