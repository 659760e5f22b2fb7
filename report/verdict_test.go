package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// verdicts scores run and recs with the default rules against dense/base
// and returns each system's "outcome rule".
func verdicts(t *testing.T, run *campaignfmt.Campaign, recs []resultfmt.Record) (map[string]string, *Summary) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Rules.Baseline = "dense/base"
	s, err := ScoreCampaign(run, recs, nil, cfg)
	require.NoError(t, err)
	out := map[string]string{}
	for _, d := range s.Decisions {
		out[d.Model] = d.Outcome + " " + d.Rule
	}
	return out, s
}

func decisionOf(t *testing.T, s *Summary, model string) Decision {
	t.Helper()
	for _, d := range s.Decisions {
		if d.Model == model {
			return d
		}
	}
	t.Fatalf("no decision on %s", model)
	return Decision{}
}

// setLatency sets every record's latency: lat(system, case index).
func setLatency(recs []resultfmt.Record, lat func(system string, i int) float64) {
	for i := range recs {
		var k int
		fmt.Sscanf(recs[i].Task, "c%d", &k)
		recs[i].LatencyMS = lat(recs[i].Model(), k)
	}
}

// TestNonInferiorBeforeGainNotSignificant: a candidate as good or better
// than the baseline on every case (a gain on 2 of 30 that is not
// significant) and ten times faster on every case is no worse within the
// margin and faster — an interactive profile — not needs_more_data; the
// same candidate at the baseline's speed still needs more data, and says
// how much.
func TestNonInferiorBeforeGainNotSignificant(t *testing.T) {
	rankOf := func(system string, i int) int {
		if system == "bm25/cand" && i < 2 {
			return 1 // gold found where the baseline finds nothing
		}
		if i < 2 {
			return 0
		}
		return 2
	}
	run, recs := runOf(30, []string{"dense/base", "bm25/cand"}, rankOf)
	setLatency(recs, func(system string, i int) float64 {
		if system == "bm25/cand" {
			return 0.5 + 0.01*float64(i%3)
		}
		return 5 + 0.1*float64(i%4)
	})
	got, s := verdicts(t, run, recs)
	if got["bm25/cand"] != "interactive_profile non_inferior_and_faster" {
		d := decisionOf(t, s, "bm25/cand")
		t.Errorf("equal-or-better and 10x faster: %s (%s), want interactive_profile (non_inferior_and_faster)", got["bm25/cand"], d.Detail)
	}
	setLatency(recs, func(string, int) float64 { return 1 })
	got, s = verdicts(t, run, recs)
	d := decisionOf(t, s, "bm25/cand")
	if got["bm25/cand"] != "needs_more_data gain_not_significant" || d.MoreCases <= 0 || !strings.Contains(d.Detail, "more paired cases would settle it") {
		t.Errorf("same speed: %s, more cases %d (%s); want needs_more_data (gain_not_significant) with a number of cases", got["bm25/cand"], d.MoreCases, d.Detail)
	}
}

// TestMoreCasesSettles: needs_more_data's estimate is honest: the same
// cases repeated until there are as many as it asks for (the observed
// effect and spread kept exactly) make the gain significant.
func TestMoreCasesSettles(t *testing.T) {
	pattern := func(system string, i int) int {
		if i%15 == 0 { // 2 of every 30 cases
			if system == "dense/cand" {
				return 1
			}
			return 0
		}
		return 2
	}
	run, recs := runOf(30, []string{"dense/base", "dense/cand"}, pattern)
	_, s := verdicts(t, run, recs)
	d := decisionOf(t, s, "dense/cand")
	require.Equal(t, "gain_not_significant", d.Rule, d.Detail)
	require.Positive(t, d.MoreCases)
	total := 30 + d.MoreCases
	total += (30 - total%30) % 30 // whole repeats keep the effect and spread
	run, recs = runOf(total, []string{"dense/base", "dense/cand"}, pattern)
	got, s := verdicts(t, run, recs)
	if got["dense/cand"] != "default significant_gain_within_budget" {
		t.Errorf("with %d cases (30 + %d asked for): %s (%s), want default", total, d.MoreCases, got["dense/cand"], decisionOf(t, s, "dense/cand").Detail)
	}
}

// TestLatencyBudgetNeedsSignificance: a candidate with a significant gain
// whose per-case latency ratio swings between 0.5x and 3x (geometric mean
// above the 1.25x budget, interval across it) is not over the latency
// budget; one steadily 2x slower is.
func TestLatencyBudgetNeedsSignificance(t *testing.T) {
	rankOf := func(system string, i int) int {
		if system == "dense/cand" {
			return 1
		}
		return 3
	}
	run, recs := runOf(30, []string{"dense/base", "dense/cand"}, rankOf)
	setLatency(recs, func(system string, i int) float64 {
		if system == "dense/cand" {
			return []float64{0.5, 3, 0.6, 2.5, 1.4}[i%5] * 4
		}
		return 4
	})
	got, s := verdicts(t, run, recs)
	d := decisionOf(t, s, "dense/cand")
	require.NotNil(t, d.Latency)
	if float64(d.Latency.Ratio) <= 1.25 || float64(d.Latency.Low) >= 1.25 {
		t.Fatalf("latency %s: the case needs a ratio above 1.25x with an interval across it", d.Latency)
	}
	if got["dense/cand"] != "default significant_gain_within_budget" {
		t.Errorf("noisy latency: %s (%s), want default: the budget decides only on a significant difference", got["dense/cand"], d.Detail)
	}
	setLatency(recs, func(system string, i int) float64 {
		if system == "dense/cand" {
			return 8 + 0.1*float64(i%3)
		}
		return 4
	})
	if got, s = verdicts(t, run, recs); got["dense/cand"] != "quality_profile significant_gain_over_budget" {
		t.Errorf("steadily 2x slower: %s (%s), want quality_profile", got["dense/cand"], decisionOf(t, s, "dense/cand").Detail)
	}
}

// TestVerdictsIgnoreLoad: the same records with every latency scaled by a
// load factor (a busy machine) give the same verdicts and the same
// latency ratios.
func TestVerdictsIgnoreLoad(t *testing.T) {
	systems := []string{"dense/base", "bm25/fast", "dense/slow", "dense/same"}
	run, recs := runOf(40, systems, func(system string, i int) int {
		switch system {
		case "dense/slow":
			return 1
		case "bm25/fast":
			return 2 + i%2
		}
		return 3 - i%2
	})
	lat := func(system string, i int) float64 {
		base := map[string]float64{"dense/base": 5, "bm25/fast": 0.3, "dense/slow": 6.5, "dense/same": 5}[system]
		return base * (1 + 0.3*float64((i*7)%5)/5)
	}
	setLatency(recs, lat)
	want, s0 := verdicts(t, run, recs)
	for _, load := range []float64{0.5, 3.7, 11} {
		setLatency(recs, func(system string, i int) float64 { return load * lat(system, i) })
		got, s := verdicts(t, run, recs)
		for _, name := range systems {
			if got[name] != want[name] {
				t.Errorf("load %.1fx: %s is %s, unloaded %s", load, name, got[name], want[name])
			}
			if name == "dense/base" {
				continue
			}
			a, b := decisionOf(t, s0, name).Latency, decisionOf(t, s, name).Latency
			if d := float64(a.Ratio - b.Ratio); d > 1e-9 || d < -1e-9 {
				t.Errorf("load %.1fx: %s latency ratio %v, unloaded %v", load, name, b.Ratio, a.Ratio)
			}
		}
	}
	if len(want) != len(systems) {
		t.Fatalf("decisions %v", want)
	}
}

// TestIndexBudgetIsCold: a candidate whose index took 3x the baseline's
// is over the 2x index budget whether its index was built now (cold) or
// reused from an earlier run that recorded the build (warm: this run's
// index time is 0.2 s); a reused index without a recorded build is not
// checked, and the decision says so.
func TestIndexBudgetIsCold(t *testing.T) {
	rankOf := func(system string, i int) int {
		if system == "dense/cand" {
			return 1
		}
		return 3
	}
	run, recs := runOf(30, []string{"dense/base", "dense/cand"}, rankOf)
	run.Systems[1].IndexSeconds = 30
	cold, _ := verdicts(t, run, recs)
	run.Systems[1].IndexSeconds, run.Systems[1].IndexReused, run.Systems[1].IndexBuildSeconds = 0.2, 1, 30
	warm, s := verdicts(t, run, recs)
	if cold["dense/cand"] != "quality_profile significant_gain_over_budget" || warm["dense/cand"] != cold["dense/cand"] {
		t.Errorf("cold: %s, warm: %s (%s); want quality_profile both times", cold["dense/cand"], warm["dense/cand"], decisionOf(t, s, "dense/cand").Detail)
	}
	if d := decisionOf(t, s, "dense/cand"); !strings.Contains(d.Detail, "reused") {
		t.Errorf("warm decision does not say the index was reused: %s", d.Detail)
	}
	run.Systems[1].IndexBuildSeconds = 0
	_, s = verdicts(t, run, recs)
	if d := decisionOf(t, s, "dense/cand"); d.Index.Checked || !strings.Contains(d.Detail, "index cost not checked") {
		t.Errorf("reused without a recorded build: checked %v, %s; want not checked, said", d.Index.Checked, d.Detail)
	}

	// The 3x build recorded on another CPU class (an AVX2 runner's cache
	// reused on an AVX-512 one) does not compare with the baseline's: not
	// checked, the classes named, and the Pareto set leaves index out.
	run.Systems[1].IndexBuildSeconds = 30
	run.Systems[0].IndexBuildCPUClasses = []string{"amd64-avx512-vnni"}
	run.Systems[1].IndexBuildCPUClasses = []string{"amd64-avx2"}
	got, s := verdicts(t, run, recs)
	d := decisionOf(t, s, "dense/cand")
	if d.Index.Checked || d.Index.CPUClasses != "amd64-avx2 vs amd64-avx512-vnni" || !strings.Contains(d.Detail, "builds timed on different CPU classes: amd64-avx2 vs amd64-avx512-vnni") {
		t.Errorf("builds of two CPU classes: index %+v, %s; want not checked, the classes named", d.Index, d.Detail)
	}
	if got["dense/cand"] != "default significant_gain_within_budget" {
		t.Errorf("builds of two CPU classes: %s; want the gain a default, no index budget checked", got["dense/cand"])
	}
	for _, r := range s.Front.Systems {
		if !slices.Contains(r.Unchecked, "index") {
			t.Errorf("Pareto row %s: not compared on %v, want index among them", r.Model, r.Unchecked)
		}
	}
	// One class on both sides, or a side with two: back to checked, and
	// not checked.
	run.Systems[1].IndexBuildCPUClasses = []string{"amd64-avx512-vnni"}
	if _, s = verdicts(t, run, recs); !decisionOf(t, s, "dense/cand").Index.Checked {
		t.Errorf("same class: index not checked")
	}
	run.Systems[0].IndexBuildCPUClasses = []string{"amd64-avx2", "amd64-avx512-vnni"}
	if _, s = verdicts(t, run, recs); decisionOf(t, s, "dense/cand").Index.Checked {
		t.Errorf("a baseline with builds of two classes: index checked")
	}
}

// TestWeakGroupNeedsEvidence: a repository of 3 cases where the candidate
// loses every case is not flagged weak (3 < 5 cases, and no paired test on
// 3 cases is significant); one of 8 such cases is, with its interval; the
// group tables show each group's n and interval.
func TestWeakGroupNeedsEvidence(t *testing.T) {
	run, recs := runOf(40, []string{"dense/base", "dense/cand"}, func(system string, i int) int {
		if system == "dense/cand" && i < 11 {
			return 0 // loses cases 0..10
		}
		return 1
	})
	// Cases 0..2 in repository "tiny", 3..10 in "small", the rest in "r".
	repoOf := func(i int) string {
		switch {
		case i < 3:
			return "tiny"
		case i < 11:
			return "small"
		}
		return "r"
	}
	for i := range run.Tasks {
		run.Tasks[i].Repo = repoOf(i)
	}
	for i := range recs {
		var k int
		fmt.Sscanf(recs[i].Task, "c%d", &k)
		recs[i].Repo = repoOf(k)
	}
	_, s := verdicts(t, run, recs)
	weak := map[string]string{}
	for _, r := range s.Regressions {
		if r.Kind == WeakGroup && r.Repo != "" {
			weak[r.Repo] = r.Detail
		}
	}
	if _, ok := weak["tiny"]; ok {
		t.Errorf("a 3-case repository flagged weak: %s", weak["tiny"])
	}
	if d, ok := weak["small"]; !ok || !strings.Contains(d, "95% CI") {
		t.Errorf("the 8-case repository that loses every case: %q, want weak with its interval", d)
	}
	md := s.Markdown()
	if !strings.Contains(md, "| dense/cand | tiny | 3 | 0.0000 [0.0000, 0.0000] |") || !strings.Contains(md, "| dense/base | tiny | 3 | 1.0000 [1.0000, 1.0000] |") {
		t.Errorf("group table lacks n and intervals:\n%s", md)
	}
}

// TestParetoFront: one verdict across all systems. bm25/fast ties the
// baseline's quality at a tenth of its latency, so it beats the baseline;
// bm25/twin is bm25/fast again (a tie, stated); dense/better gains
// quality at a little more latency (on the front); dense/worse loses
// quality at the baseline's cost (beaten). Scaling every latency (load)
// keeps the front.
func TestParetoFront(t *testing.T) {
	systems := []string{"dense/base", "bm25/fast", "bm25/twin", "dense/better", "dense/worse"}
	run, recs := runOf(30, systems, func(system string, i int) int {
		switch system {
		case "dense/better":
			return 1
		case "dense/worse":
			return 5
		}
		return 3
	})
	lat := func(system string, i int) float64 {
		v := map[string]float64{"dense/base": 5, "bm25/fast": 0.5, "bm25/twin": 0.5, "dense/better": 6, "dense/worse": 5}[system]
		return v * (1 + 0.05*float64(i%3))
	}
	setLatency(recs, lat)
	_, s := verdicts(t, run, recs)
	want := "bm25/fast, bm25/twin, dense/better (tied: bm25/fast = bm25/twin)"
	if got := s.Front.String(); got != want {
		t.Errorf("front = %q, want %q\n%+v", got, want, s.Front.Systems)
	}
	for _, r := range s.Front.Systems {
		if r.Model == "dense/worse" && (r.OnFront || len(r.BeatenBy) == 0) {
			t.Errorf("dense/worse: %+v, want beaten", r)
		}
	}
	if md := s.Markdown(); !strings.Contains(md, "One verdict across all systems: **"+want+"**") {
		t.Errorf("quality-summary.md lacks the front:\n%s", md)
	}
	setLatency(recs, func(system string, i int) float64 { return 7.3 * lat(system, i) })
	if _, s = verdicts(t, run, recs); s.Front.String() != want {
		t.Errorf("under load the front is %q, want %q", s.Front.String(), want)
	}
}

// TestStaleGrades: a filled sheet's grades are bound to the case and the
// hit they were given to. Re-scored unchanged, every grade counts; after
// the case's query changed, its grades are set aside and listed; after a
// hit's text changed, that hit's grade is; a sheet without the hash
// columns (older) is used unchecked and says so.
func TestStaleGrades(t *testing.T) {
	mk := func(query, textB string) (*campaignfmt.Campaign, []resultfmt.Record) {
		run := &campaignfmt.Campaign{Meta: campaignfmt.Meta{Dataset: "d"}, Tasks: []campaignfmt.Task{
			task("t1", "r", "symbol_lookup", campaignfmt.Gold{Kind: "doc", ID: "gold", Grade: 3}),
			task("t2", "r", "symbol_lookup", campaignfmt.Gold{Kind: "doc", ID: "gold2", Grade: 3}),
		}}
		run.Tasks[0].Query = query
		recs := []resultfmt.Record{rec("bm25/x", "t1", "r", "symbol_lookup", "a", "gold"), rec("bm25/x", "t2", "r", "symbol_lookup", "b", "gold2")}
		recs[0].Hits[0].TextSHA, recs[1].Hits[0].TextSHA = "aaaa", textB
		return run, recs
	}
	run, recs := mk("where is f", "bbbb")
	dir := t.TempDir()
	require.NoError(t, WritePool(dir, Pool(run, recs, 2)))
	b, err := os.ReadFile(filepath.Join(dir, "grading-sheet.csv"))
	require.NoError(t, err)
	var filled []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(l, ",")
		if f[4] == "a" || f[4] == "b" {
			f[9] = "2"
		}
		filled = append(filled, strings.Join(f, ","))
	}
	sheet := filepath.Join(dir, "filled.csv")
	require.NoError(t, os.WriteFile(sheet, []byte(strings.Join(filled, "\n")+"\n"), 0o644))
	human, err := ReadSheet(sheet)
	require.NoError(t, err)
	score := func(run *campaignfmt.Campaign, recs []resultfmt.Record, human []Judgment) *Summary {
		t.Helper()
		cfg := DefaultConfig()
		cfg.Rules.Gains = nil
		s, err := ScoreCampaign(run, recs, human, cfg)
		require.NoError(t, err)
		return s
	}
	stale := func(s *Summary) []string {
		var out []string
		for _, f := range s.Failures {
			if f.Kind == campaignfmt.FailStaleGrade {
				out = append(out, f.Task)
			}
		}
		return out
	}
	run1, recs1 := mk("where is f", "bbbb")
	if s := score(run1, recs1, human); s.StaleGrades != 0 || len(stale(s)) != 0 {
		t.Errorf("unchanged: stale %v", stale(s))
	}
	run2, recs2 := mk("where is g", "bbbb")
	if s := score(run2, recs2, human); s.StaleGrades != 1 || strings.Join(stale(s), ",") != "t1" {
		t.Errorf("t1's query changed: stale %v (%d), want t1's grade", stale(s), s.StaleGrades)
	}
	run3, recs3 := mk("where is f", "cccc")
	s := score(run3, recs3, human)
	if strings.Join(stale(s), ",") != "t2" {
		t.Errorf("t2's hit b changed: stale %v, want t2", stale(s))
	}
	if md := s.Markdown(); !strings.Contains(md, "stale_grade t2: ") || !strings.Contains(md, "the result's text changed") {
		t.Errorf("quality-summary.md does not list the stale grade:\n%s", md)
	}
	var old []Judgment
	for _, j := range human {
		j.CaseSHA, j.HitSHA = "", ""
		old = append(old, j)
	}
	if s := score(run2, recs2, old); s.StaleGrades != 0 || !slices.ContainsFunc(s.Meta.Notes, func(n string) bool { return strings.Contains(n, "used unchecked") }) {
		t.Errorf("older sheet: stale %d, notes %v; want used unchecked, said", s.StaleGrades, s.Meta.Notes)
	}
}

// TestGoldGradeRule: the one rule for people's grades against the case
// file's: the gold grades what it names, people's grades fill in the rest.
// A person's grade on a chunk of a gold file that differs from the gold's,
// or on a second chunk of it, is not used, and listed; one that agrees is
// not listed; one on a result the gold does not name counts.
func TestGoldGradeRule(t *testing.T) {
	run := &campaignfmt.Campaign{Meta: campaignfmt.Meta{Dataset: "d"}, Tasks: []campaignfmt.Task{
		task("t1", "r", "symbol_lookup", campaignfmt.Gold{Kind: "file", ID: "a.py", Grade: 2}),
	}}
	mk := func() []resultfmt.Record {
		return []resultfmt.Record{rec("bm25/x", "t1", "r", "symbol_lookup", "a.py#f", "x.py#h", "a.py#g")}
	}
	human := []Judgment{
		{Task: "t1", DocID: "a.py#f", Grade: 3, Source: "s.csv:2"},
		{Task: "t1", DocID: "x.py#h", Grade: 2, Source: "s.csv:3"},
		{Task: "t1", DocID: "a.py#g", Grade: 3, Source: "s.csv:4"},
	}
	cfg := DefaultConfig()
	cfg.Rules.Gains = nil
	recs := mk()
	s, err := ScoreCampaign(run, recs, human, cfg)
	require.NoError(t, err)
	if len(s.GoldKept) != 2 || !strings.Contains(s.GoldKept[0], "s.csv:2: t1 a.py#f graded 3, not used: it satisfies a gold unit of the case file, graded 2 there") ||
		!strings.Contains(s.GoldKept[1], "s.csv:4: t1 a.py#g graded 3, not used") {
		t.Errorf("gold kept = %q, want a.py#f (gold grades it 2) and a.py#g (second chunk)", s.GoldKept)
	}
	if got := recs[0].Hits[0].Grade; got != 2 {
		t.Errorf("a.py#f counts with grade %d, want the gold's 2", got)
	}
	if got := recs[0].Hits[1].Grade; got != 2 {
		t.Errorf("x.py#h counts with grade %d, want the person's 2", got)
	}
	if !strings.Contains(s.Markdown(), "## Grades the case file's gold overrules") {
		t.Error("quality-summary.md does not list the overruled grades")
	}
	human[0].Grade = 2
	human = human[:2]
	s, err = ScoreCampaign(run, mk(), human, cfg)
	require.NoError(t, err)
	if len(s.GoldKept) != 0 {
		t.Errorf("a grade that agrees with the gold listed: %q", s.GoldKept)
	}
}

// TestGradingEffort: the sheet lists first the rows whose grade can move
// a paired comparison (systems rank them differently), the rows every
// system ranks alike after them, the gold-graded rows last; the effort
// table counts the rows per depth.
func TestGradingEffort(t *testing.T) {
	run := &campaignfmt.Campaign{Meta: campaignfmt.Meta{Dataset: "d", PoolDepth: 3}, Tasks: []campaignfmt.Task{
		task("t1", "r", "symbol_lookup", campaignfmt.Gold{Kind: "doc", ID: "gold", Grade: 3}),
		task("t2", "r", "symbol_lookup", campaignfmt.Gold{Kind: "doc", ID: "gold2", Grade: 3}),
	}}
	recs := []resultfmt.Record{
		// t1: "same" at rank 1 for both (impact 0); "gold" graded; "only" ranked by a alone.
		rec("bm25/a", "t1", "r", "symbol_lookup", "same", "gold", "only"),
		rec("dense/b", "t1", "r", "symbol_lookup", "same", "gold", "other"),
		// t2: "x" at ranks 1 and 2 (impact 1 − 0.63), "y" and "z" at 3 for one.
		rec("bm25/a", "t2", "r", "symbol_lookup", "x", "gold2", "y"),
		rec("dense/b", "t2", "r", "symbol_lookup", "gold2", "x", "z"),
	}
	cfg := DefaultConfig()
	cfg.Rules.Gains = nil
	s, err := ScoreCampaign(run, recs, nil, cfg)
	require.NoError(t, err)
	var order []string
	for _, e := range SheetOrder(Pool(run, recs, 3)) {
		order = append(order, fmt.Sprintf("%s/%s %.4f", e.Task, e.DocID, e.Impact))
	}
	// Rows to grade by impact (1/log2(2) − 0 = 0.5 before 1 − 1/log2(3) =
	// 0.3691), pool order within a tie; the gold-graded rows last.
	want := []string{"t1/only 0.5000", "t1/other 0.5000", "t2/y 0.5000", "t2/z 0.5000", "t2/x 0.3691", "t1/same 0.0000", "t2/gold2 0.3691", "t1/gold 0.0000"}
	if strings.Join(order, ", ") != strings.Join(want, ", ") {
		t.Errorf("sheet order:\n got %v\nwant %v", order, want)
	}
	var effort []string
	for _, e := range s.Effort {
		effort = append(effort, fmt.Sprintf("%d:%d/%d/%d/%d", e.Depth, e.Results, e.Graded, e.ToGrade, e.CanChange))
	}
	// depth 1: t1 same; t2 x (a), gold2 (b) → 3 results, 1 graded, 2 to grade, x can change.
	// depth 3: 8 results, 2 graded, 6 to grade, 5 can change (all but same).
	if got := strings.Join(effort, " "); got != "1:3/1/2/1 3:8/2/6/5" {
		t.Errorf("effort = %s, want 1:3/1/2/1 3:8/2/6/5", got)
	}
	if md := s.Markdown(); !strings.Contains(md, "| 3 (this pool) | 8 | 2 | 6 | 5 |") {
		t.Errorf("quality-summary.md lacks the effort table:\n%s", md)
	}
}

// TestLowerMeasure: a measure whose Def says lower is better, given to
// the report as a value (Config.Defs), ranks low first, and a candidate
// that lowers it significantly by the threshold gains — the same records
// with the measure taken as higher-is-better reject it.
func TestLowerMeasure(t *testing.T) {
	misses := &metrics.Def{Name: "misses", Cut: metrics.WholeList, Lower: true}
	var recs []resultfmt.Record
	for i := range 30 {
		for _, m := range []struct {
			model string
			v     float64
		}{{"x/a", 3 + float64(i%2)}, {"x/b", float64(i % 2)}} {
			r := rec(m.model, fmt.Sprintf("c%02d", i), "r", "symbol_lookup")
			r.Values = map[string]float64{"misses": m.v}
			recs = append(recs, r)
		}
	}
	cfg := DefaultConfig()
	cfg.Only, cfg.Defs = []string{"misses"}, []*metrics.Def{misses}
	cfg.Rules.Primary, cfg.Rules.Gains, cfg.Rules.Baseline = "misses", []Gain{{Measure: "misses", Threshold: 0.5}}, "x/a"
	s, err := Summarize(Input{Records: recs}, cfg)
	require.NoError(t, err)
	if s.Systems[0].Name != "x/b" {
		t.Errorf("ranking %s first, want x/b (fewer misses)", s.Systems[0].Name)
	}
	if d := decisionOf(t, s, "x/b"); d.Outcome != Default {
		t.Errorf("x/b: %s (%s: %s), want default: 3 fewer misses per case", d.Outcome, d.Rule, d.Detail)
	}
	cfg.Defs = []*metrics.Def{{Name: "misses", Cut: metrics.WholeList}} // the same name, higher is better
	s, err = Summarize(Input{Records: recs}, cfg)
	require.NoError(t, err)
	if d := decisionOf(t, s, "x/b"); d.Outcome != Rejected || s.Systems[0].Name != "x/a" {
		t.Errorf("higher is better: x/b %s, first %s; want rejected, x/a first", d.Outcome, s.Systems[0].Name)
	}
	cfg.Defs = nil // a recorded name without its Def: higher is better
	s, err = Summarize(Input{Records: recs}, cfg)
	require.NoError(t, err)
	if s.Systems[0].Name != "x/a" {
		t.Errorf("recorded without its Def: %s first, want x/a", s.Systems[0].Name)
	}
	cfg.Rules.Gains = []Gain{{Measure: "nonesuch", Threshold: 0.5}}
	if _, err := Summarize(Input{Records: recs}, cfg); err == nil || !strings.Contains(err.Error(), `unknown measure "nonesuch"`) {
		t.Errorf("a gain on a measure neither defined nor recorded: err %v, want unknown measure", err)
	}
}

// TestOlderSheetNotStale: a filled sheet written before grades were bound
// (no case_sha256, hit_sha256 columns) reads with empty hashes — not with
// another column's text — so its grades are used, unchecked.
func TestOlderSheetNotStale(t *testing.T) {
	sheet := filepath.Join(t.TempDir(), "old.csv")
	require.NoError(t, os.WriteFile(sheet, []byte("case_id,repo,intent,query,result_id,ranked_by_models,kind,path,symbol,grade,notes\nt1,r,symbol_lookup,q t1,a,bm25/x@1,,,,2,\n"), 0o644))
	js, err := ReadSheet(sheet)
	require.NoError(t, err)
	require.Len(t, js, 1)
	if js[0].CaseSHA != "" || js[0].HitSHA != "" {
		t.Errorf("older sheet: case hash %q, hit hash %q; want none", js[0].CaseSHA, js[0].HitSHA)
	}
}

// TestMoreCasesFasterSettles: a faster candidate with a gain that is not
// significant and an interval too wide to show it no worse asks for the
// fewer cases of the two claims (non-inferiority here), and the same
// cases repeated to that many settle it: interactive_profile or better.
func TestMoreCasesFasterSettles(t *testing.T) {
	pattern := func(system string, i int) int {
		switch {
		case i%10 < 2: // the candidate finds what the baseline misses
			if system == "dense/cand" {
				return 1
			}
			return 0
		case i%10 == 2: // and misses what the baseline finds
			if system == "dense/cand" {
				return 0
			}
			return 1
		}
		return 2
	}
	fast := func(recs []resultfmt.Record) {
		setLatency(recs, func(system string, i int) float64 {
			if system == "dense/cand" {
				return 1 + 0.1*float64(i%3)
			}
			return 10 + float64(i%4)
		})
	}
	run, recs := runOf(30, []string{"dense/base", "dense/cand"}, pattern)
	fast(recs)
	_, s := verdicts(t, run, recs)
	d := decisionOf(t, s, "dense/cand")
	require.Equal(t, "gain_not_significant", d.Rule, d.Detail)
	require.Contains(t, d.Detail, "would show it no worse")
	require.Positive(t, d.MoreCases)
	total := 30 + d.MoreCases
	total += (10 - total%10) % 10
	run, recs = runOf(total, []string{"dense/base", "dense/cand"}, pattern)
	fast(recs)
	got, s := verdicts(t, run, recs)
	if got["dense/cand"] != "interactive_profile non_inferior_and_faster" && !strings.HasPrefix(got["dense/cand"], "default") {
		t.Errorf("with %d cases (30 + %d asked for): %s (%s), want interactive_profile or default", total, d.MoreCases, got["dense/cand"], decisionOf(t, s, "dense/cand").Detail)
	}
}

// TestParetoFloors: a latency ratio, however significant, between two
// systems whose medians are under ParetoLatencyFloorMS apart does not
// tell them apart (it came and went with the load in the x/perf study's
// reruns); the same ratio between slower systems does.
func TestParetoFloors(t *testing.T) {
	systems := []string{"bm25/a", "bm25/b"}
	run, recs := runOf(30, systems, func(string, int) int { return 3 })
	for _, c := range []struct {
		name   string
		a, b   float64
		tied   bool
		reason string
	}{
		{"sub-millisecond", 0.2, 0.35, true, "1.75× but 0.15 ms apart: below the floor"},
		{"milliseconds", 2, 3.5, false, "1.75× and 1.5 ms apart: b is beaten"},
		{"close", 4, 4.4, true, "1.1×: within ParetoCostTolerance"},
	} {
		setLatency(recs, func(system string, i int) float64 {
			v := map[string]float64{"bm25/a": c.a, "bm25/b": c.b}[system]
			return v * (1 + 0.02*float64(i%3))
		})
		_, s := verdicts(t, run, recs)
		want := "bm25/a"
		if c.tied {
			want = "bm25/a, bm25/b (tied: bm25/a = bm25/b)"
		}
		if got := s.Front.String(); got != want {
			t.Errorf("%s (%s): front %q, want %q", c.name, c.reason, got, want)
		}
	}
}

// TestParetoRules: the Pareto tolerances are decision rules, recorded with
// them (run.json's "pareto") and read back: a campaign that asks for a 2×
// cost tolerance ties two systems 1.75× apart that the default tells
// apart; one that lowers the latency floor tells sub-millisecond systems
// apart; a rules record without them (an older run.json) takes the
// defaults; a tolerance below 1 is refused.
func TestParetoRules(t *testing.T) {
	run, recs := runOf(30, []string{"bm25/a", "bm25/b"}, func(string, int) int { return 3 })
	front := func(a, b float64, p campaignfmt.ParetoRules) string {
		t.Helper()
		setLatency(recs, func(system string, i int) float64 {
			return map[string]float64{"bm25/a": a, "bm25/b": b}[system] * (1 + 0.02*float64(i%3))
		})
		cfg := DefaultConfig()
		cfg.Rules.Baseline, cfg.Rules.Pareto = "bm25/a", p
		s, err := ScoreCampaign(run, recs, nil, cfg)
		require.NoError(t, err)
		return s.Front.String()
	}
	const tied = "bm25/a, bm25/b (tied: bm25/a = bm25/b)"
	def := DefaultDecisionRules().Pareto
	require.Equal(t, "bm25/a", front(2, 3.5, def), "1.75×, 1.5 ms apart: the default tells them apart")
	require.Equal(t, "bm25/a", front(2, 3.5, campaignfmt.ParetoRules{}), "no recorded tolerances: the defaults")
	wide := def
	wide.CostTolerance = 2
	require.Equal(t, tied, front(2, 3.5, wide), "within a recorded 2× tolerance")
	require.Equal(t, tied, front(0.2, 0.35, def), "0.15 ms apart: under the default floor")
	fine := def
	fine.LatencyFloorMS = 0.1
	require.Equal(t, "bm25/a", front(0.2, 0.35, fine), "over a recorded 0.1 ms floor")

	b, err := json.Marshal(DefaultDecisionRules().Record())
	require.NoError(t, err)
	require.Contains(t, string(b), `"pareto":{"cost_tolerance":1.25,"latency_floor_ms":1,"index_floor_seconds":1,"memory_tolerance":2,"memory_floor_mb":64}`)
	bad := DefaultDecisionRules()
	bad.Pareto.CostTolerance = 0.5
	require.ErrorContains(t, bad.Validate(), "pareto cost_tolerance 0.5 is not a ratio of at least 1")
}
