package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// rec builds a record whose hits are the given doc ids in rank order; a
// doc id "path#Symbol" gives the hit that path and symbol.
func rec(model, task, repo, intent string, docs ...string) resultfmt.Record {
	sys, conf, _ := strings.Cut(model, "/")
	r := resultfmt.Record{Dataset: "d", Split: "all", System: sys, Config: conf, Task: task, Repo: repo, Intent: intent, Query: "q " + task,
		LatencyMS: 1}
	for i, d := range docs {
		p, sym, _ := strings.Cut(d, "#")
		r.Hits = append(r.Hits, resultfmt.Hit{Rank: i + 1, DocID: d, Path: p, Symbol: sym, Score: float64(len(docs) - i)})
	}
	return r
}

func task(id, repo, intent string, gold ...campaignfmt.Gold) campaignfmt.Task {
	return campaignfmt.Task{ID: id, Repo: repo, Intent: intent, Query: "q " + id, Gold: gold}
}

func TestPoolDedupAndOrder(t *testing.T) {
	run := &campaignfmt.Campaign{Tasks: []campaignfmt.Task{
		task("t2", "r", "symbol_lookup", campaignfmt.Gold{Kind: "symbol", ID: "A.f", Grade: 3}),
		task("t1", "r", "symbol_lookup"),
	}}
	recs := []resultfmt.Record{
		rec("bm25/x", "t1", "r", "symbol_lookup", "c", "b", "z"),
		rec("dense/m", "t1", "r", "symbol_lookup", "b", "a", "c"),
		rec("bm25/x", "t2", "r", "symbol_lookup", "a.py#A.f", "y", "deep"),
		rec("dense/m", "t2", "r", "symbol_lookup", "x", "a.py#A.f"),
	}
	_, err := Judge(run, recs, nil)
	require.NoError(t, err)
	pool := Pool(run, recs, 2)
	type row struct {
		Task, Doc, By string
		Grade         int
	}
	var got []row
	for _, e := range pool {
		g := -1
		if e.Grade != nil {
			g = *e.Grade
		}
		got = append(got, row{e.Task, e.DocID, rankedBy(e.RankedBy), g})
	}
	want := []row{
		// Tasks in run order; within a task by best rank, then by how many
		// systems ranked it, then doc id. "deep" is below the pool depth.
		{"t2", "a.py#A.f", "bm25/x@1;dense/m@2", 3},
		{"t2", "x", "dense/m@1", -1},
		{"t2", "y", "bm25/x@2", -1},
		{"t1", "b", "bm25/x@2;dense/m@1", -1},
		{"t1", "c", "bm25/x@1", -1},
		{"t1", "a", "dense/m@2", -1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pool (-want +got):\n%s", diff)
	}
	// The same input in another record order pools identically.
	recs2 := []resultfmt.Record{recs[3], recs[1], recs[2], recs[0]}
	_, err = Judge(run, recs2, nil)
	require.NoError(t, err)
	if diff := cmp.Diff(pool, Pool(run, recs2, 2)); diff != "" {
		t.Errorf("pool depends on record order (-first +second):\n%s", diff)
	}
}

func TestSheetRoundTripAndScore(t *testing.T) {
	run := &campaignfmt.Campaign{Meta: campaignfmt.Meta{Dataset: "d"}, Tasks: []campaignfmt.Task{
		task("t1", "r", "symbol_lookup", campaignfmt.Gold{Kind: "symbol", ID: "A.f", Grade: 3}, campaignfmt.Gold{Kind: "file", ID: "never.py", Grade: 1}),
	}}
	recs := []resultfmt.Record{rec("bm25/x", "t1", "r", "symbol_lookup", "x.py#B.g", "a.py#A.f", "y.py#C.h")}
	_, err := Judge(run, recs, nil)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, WritePool(dir, Pool(run, recs, 3)))
	b, err := os.ReadFile(filepath.Join(dir, "grading-sheet.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 4)
	require.Equal(t, strings.Join(SheetHeader, ","), lines[0])
	// A person grades x.py#B.g 2 and leaves y.py#C.h blank.
	var filled []string
	for _, l := range lines {
		if strings.Contains(l, "x.py#B.g") {
			l = strings.Replace(l, ",symbol_lookup,", ",symbol_lookup,", 1)
			f := strings.Split(l, ",")
			f[9] = "2"
			l = strings.Join(f, ",")
		}
		filled = append(filled, l)
	}
	sheet := filepath.Join(dir, "filled.csv")
	require.NoError(t, os.WriteFile(sheet, []byte(strings.Join(filled, "\n")+"\n"), 0o644))
	human, err := ReadSheet(sheet)
	require.NoError(t, err)
	// The gold-prefilled a.py#A.f row (listed last: nothing to grade)
	// comes back as a judgment too.
	if diff := cmp.Diff([]Judgment{{Task: "t1", DocID: "x.py#B.g", Grade: 2, Source: sheet + ":2"}, {Task: "t1", DocID: "a.py#A.f", Grade: 3, Source: sheet + ":4"}}, human,
		cmpopts.IgnoreFields(Judgment{}, "CaseSHA", "HitSHA")); diff != "" {
		t.Errorf("judgments (-want +got):\n%s", diff)
	}
	cfg := DefaultConfig()
	cfg.Rules.Gains = nil
	s, err := ScoreCampaign(run, recs, human, cfg)
	require.NoError(t, err)
	// Relevant: x.py#B.g (2), a.py#A.f (3) and the never-retrieved gold
	// file (1): R = 3. Ranking: rel, rel, unjudged.
	ideal := 3/math.Log2(2) + 2/math.Log2(3) + 1/math.Log2(4)
	dcg := 2/math.Log2(2) + 3/math.Log2(3)
	want := map[string]float64{"hit@1": 1, "mrr@10": 1, "recall@5": 2.0 / 3, "ndcg@10": dcg / ideal}
	got := map[string]float64{}
	for m := range want {
		got[m] = float64(s.Systems[0].Micro[m].Mean)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-4)); diff != "" {
		t.Errorf("scores (-want +got):\n%s", diff)
	}
	if j := s.Systems[0].Judged["judged@3"]; j != resultfmt.Fixed(2.0/3) {
		t.Errorf("judged@3 = %v, want 2/3: the ungraded third hit is unjudged", j)
	}
	if s.Systems[0].Unjudged != 1 {
		t.Errorf("unjudged = %d, want 1", s.Systems[0].Unjudged)
	}
	if h := recs[0].Hits[2]; h.Judged || h.Grade != 0 {
		t.Errorf("unjudged hit = %+v: it must stay unjudged and non-relevant", h)
	}
}

func TestReadSheetErrors(t *testing.T) {
	head := strings.Join(SheetHeader, ",") + "\n"
	row := func(doc, grade string) string {
		return "t1,r,symbol_lookup,q,\"" + doc + "\",m@1,function,p,s," + grade + ",\n"
	}
	for _, tc := range []struct{ name, sheet, want string }{
		{"grade out of range", head + row("a", "4"), `s.csv:2: grade "4" is not an integer 0..3`},
		{"not a number", head + row("a", "x"), `s.csv:2: grade "x"`},
		{"conflict", head + row("a", "1") + row("a", "2"), `:3: t1 a graded 2, but 1 at`},
		{"no grade column", "case_id,result_id\n", `:1: no "grade" column`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "s.csv")
			require.NoError(t, os.WriteFile(f, []byte(tc.sheet), 0o644))
			if _, err := ReadSheet(f); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
			if tc.name != "conflict" {
				_, err := ReadSheet(f)
				filelinetest.Want(t, err, tc.want)
			}
		})
	}
	run := &campaignfmt.Campaign{Tasks: []campaignfmt.Task{task("t1", "r", "i")}}
	if _, err := Judge(run, nil, []Judgment{{Task: "t9", DocID: "a", Grade: 1, Source: "s.csv:7"}}); err == nil || !strings.Contains(err.Error(), `s.csv:7: unknown case "t9"`) {
		t.Errorf("unknown case: error = %v", err)
	}
}

func TestMacroVsMicro(t *testing.T) {
	// Repo "big" has three cases, all hits at rank 1; repo "small" one
	// case that misses. Micro hit@1 = 3/4, macro (per repo) = (1 + 0)/2.
	run := &campaignfmt.Campaign{Meta: campaignfmt.Meta{Dataset: "d"}, Tasks: []campaignfmt.Task{
		task("b1", "big", "symbol_lookup", campaignfmt.Gold{Kind: "doc", ID: "g", Grade: 1}),
		task("b2", "big", "symbol_lookup", campaignfmt.Gold{Kind: "doc", ID: "g", Grade: 1}),
		task("b3", "big", "docs_lookup", campaignfmt.Gold{Kind: "doc", ID: "g", Grade: 1}),
		task("s1", "small", "docs_lookup", campaignfmt.Gold{Kind: "doc", ID: "g", Grade: 1}),
	}}
	var recs []resultfmt.Record
	for _, tk := range run.Tasks[:3] {
		recs = append(recs, rec("bm25/x", tk.ID, tk.Repo, tk.Intent, "g"))
	}
	recs = append(recs, rec("bm25/x", "s1", "small", "docs_lookup", "n"))
	cfg := DefaultConfig()
	cfg.Rules.Gains = nil
	s, err := ScoreCampaign(run, recs, nil, cfg)
	require.NoError(t, err)
	ss := s.Systems[0]
	got := []float64{float64(ss.Micro["hit@1"].Mean), float64(ss.MacroRepo["hit@1"].Mean), float64(ss.MacroIntent["hit@1"])}
	// Intents: symbol_lookup 2/2 = 1, docs_lookup 1/2 = 0.5 → 0.75.
	if diff := cmp.Diff([]float64{0.75, 0.5, 0.75}, got); diff != "" {
		t.Errorf("micro, macro by repo, macro by intent (-want +got):\n%s", diff)
	}
	if lo, hi := ss.MacroRepo["hit@1"].Low, ss.MacroRepo["hit@1"].High; lo != 0.5 || hi != 0.5 {
		t.Errorf("macro CI = [%v, %v], want [0.5, 0.5]: every resample keeps each repo's constant values", lo, hi)
	}
}

func TestSummarizeRefusesMixedDatasets(t *testing.T) {
	a, b := rec("bm25/x", "t1", "r", "i", "g"), rec("bm25/x", "t2", "r", "i", "g")
	b.Dataset = "other"
	if _, err := Summarize(Input{Records: []resultfmt.Record{a, b}}, DefaultConfig()); err == nil || !strings.Contains(err.Error(), "report each dataset on its own") {
		t.Errorf("error = %v", err)
	}
}

// writeTwice summarises and writes the same inputs into two directories.
func TestReportsByteIdentical(t *testing.T) {
	build := func() (*campaignfmt.Campaign, []resultfmt.Record) {
		run := &campaignfmt.Campaign{Meta: campaignfmt.Meta{Tool: "retrievalbench", Generated: "2026-01-01T00:00:00Z"},
			Systems: []campaignfmt.SystemCost{{Name: "dense/a", Status: campaignfmt.StatusOK, IndexSeconds: 2, PeakRSSMB: 100, Dimension: 384},
				{Name: "bm25/x", Status: campaignfmt.StatusOK, IndexSeconds: 1, PeakRSSMB: 50}}}
		var recs []resultfmt.Record
		for i, id := range []string{"c1", "c2", "c3", "c4", "c5", "c6"} {
			repo := []string{"r1", "r2"}[i%2]
			run.Tasks = append(run.Tasks, task(id, repo, "symbol_lookup", campaignfmt.Gold{Kind: "doc", ID: "g" + id, Grade: 2}))
			recs = append(recs, rec("dense/a", id, repo, "symbol_lookup", "x", "g"+id))
			recs = append(recs, rec("bm25/x", id, repo, "symbol_lookup", "g"+id, "y"))
		}
		return run, recs
	}
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		run, recs := build()
		s, err := ScoreCampaign(run, recs, []Judgment{{Task: "c1", DocID: "x", Grade: 1, Source: "s:2"}}, DefaultConfig())
		require.NoError(t, err)
		require.NoError(t, Write(dir, s))
	}
	for _, f := range Files {
		a, err := os.ReadFile(filepath.Join(dirs[0], f))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dirs[1], f))
		require.NoError(t, err)
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs with the same inputs", f)
		}
		if len(a) == 0 && f != "regressions.md" {
			t.Errorf("%s is empty", f)
		}
	}
}
