package harness

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/goldenfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
	"github.com/retrievalbench/retrievalbench/systems"
)

// scripted is a System for testing the harness around it: it answers each
// query from a fixed table and can fail, panic or hang on command.
type scripted struct {
	answers map[string][]systems.Hit
	indexed bool
}

func (s *scripted) Index(ctx context.Context, c *corpus.Corpus) error { s.indexed = true; return nil }
func (s *scripted) Close() error                                      { return nil }
func (s *scripted) Search(ctx context.Context, q string, k int) ([]systems.Hit, error) {
	switch q {
	case "fail":
		return nil, errors.New("backend down")
	case "panic":
		panic("boom")
	case "hang":
		<-ctx.Done() // returns when abandoned, as an external system does
		return nil, ctx.Err()
	case "spin":
		for ctx.Err() == nil { // sees the deadline at once, unlike a parked goroutine
		}
		return nil, ctx.Err()
	case "hang-forever":
		<-make(chan struct{}) // never returns, ignores ctx
	case "slow":
		time.Sleep(2 * time.Millisecond)
	}
	return s.answers[q], nil
}

func docs(ids ...string) []corpus.Doc {
	var out []corpus.Doc
	for _, id := range ids {
		path, _, _ := strings.Cut(id, "#")
		out = append(out, corpus.Doc{ID: id, Path: path, Kind: "doc", Text: id})
	}
	return out
}

func hits(ids ...string) []systems.Hit {
	var out []systems.Hit
	for i, id := range ids {
		out = append(out, systems.Hit{DocID: id, Score: float64(len(ids) - i)})
	}
	return out
}

func prepared(t *testing.T, tasks ...datasets.Task) *Prepared {
	t.Helper()
	ds := &datasets.Dataset{Name: "unit", Split: "all",
		Corpora: map[string]*corpus.Corpus{"r": {ID: "r", Docs: docs("a", "b", "c")}},
		Tasks:   tasks}
	p, err := Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	return p
}

func task(id, q string, gold ...string) datasets.Task {
	t := datasets.Task{ID: id, Query: q, CorpusID: "r"}
	for _, g := range gold {
		t.Gold = append(t.Gold, datasets.Relevant{Kind: "doc", ID: g, Grade: 1})
	}
	return t
}

func spec(s systems.System) systems.Spec {
	return systems.Spec{System: "scripted", Config: "x", Hash: "h1",
		New: func(systems.Options) (systems.System, error) { return s, nil }}
}

func TestRunIsolatesTaskFailures(t *testing.T) {
	p := prepared(t,
		task("ok", "q1", "b"),
		task("err", "fail", "a"),
		task("panic", "panic", "a"),
		task("unknown-doc", "q2", "a"),
		task("after", "q1", "b"),
	)
	sys := &scripted{answers: map[string][]systems.Hit{"q1": hits("a", "b"), "q2": hits("zzz")}}
	cfg := DefaultRunConfig()
	cfg.Measures = []metrics.Measure{metrics.Hit.At(1), metrics.MRR.At(0)}
	res, err := Run(t.Context(), p, spec(sys), cfg)
	require.NoError(t, err)
	got := map[string]string{}
	for _, tr := range res.Tasks {
		got[tr.ID] = firstLine(tr.Err)
	}
	want := map[string]string{
		"ok": "", "after": "", "err": "backend down", "panic": "panic: boom",
		"unknown-doc": `system returned unknown doc id "zzz"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("task errors (-want +got):\n%s", diff)
	}
	if tr := res.Tasks[0]; tr.FirstRelevant != 2 || tr.Values[1] != 0.5 {
		t.Errorf("task ok: first relevant %d, mrr %v; want 2, 0.5", tr.FirstRelevant, tr.Values[1])
	}
}

// TestRunReportsSearchProgress: a corpus's tasks report how many are done,
// the rate and the ETA, at most every ProgressEvery (here: after every task
// but the last, which the "indexed"/result lines cover).
func TestRunReportsSearchProgress(t *testing.T) {
	p := prepared(t, task("t1", "slow", "a"), task("t2", "slow", "a"), task("t3", "slow", "a"), task("t4", "slow", "a"))
	cfg := DefaultRunConfig()
	cfg.ProgressEvery = time.Nanosecond
	var lines []string
	cfg.Logf = func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	_, err := Run(t.Context(), p, spec(&scripted{}), cfg)
	require.NoError(t, err)
	var got []string
	for _, l := range lines {
		if strings.HasPrefix(l, "searching ") {
			head, rest, _ := strings.Cut(l, " (")
			got = append(got, head)
			if !strings.Contains(rest, " queries/s, ETA ") {
				t.Errorf("progress line %q lacks the rate and ETA", l)
			}
		}
	}
	want := []string{"searching r: 1/4 tasks", "searching r: 2/4 tasks", "searching r: 3/4 tasks"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress lines (-want +got):\n%s", diff)
	}

	cfg.ProgressEvery = time.Hour
	lines = nil
	_, err = Run(t.Context(), p, spec(&scripted{}), cfg)
	require.NoError(t, err)
	for _, l := range lines {
		if strings.HasPrefix(l, "searching ") {
			t.Errorf("progress line %q within ProgressEvery of the start", l)
		}
	}
}

// racy is a system whose Search reads state that Close clears, as
// systems/bm25 does with its id table: closing while an abandoned Search
// still runs is a data race that go test -race reports.
type racy struct{ ids []string }

func (s *racy) Index(context.Context, *corpus.Corpus) error { s.ids = []string{"a"}; return nil }
func (s *racy) Close() error                                { s.ids = nil; return nil }
func (s *racy) Search(ctx context.Context, q string, k int) ([]systems.Hit, error) {
	<-ctx.Done()
	time.Sleep(20 * time.Millisecond) // still reading after the harness gave up
	return []systems.Hit{{DocID: s.ids[0]}}, nil
}

func TestRunWaitsForAnAbandonedSearchBeforeClose(t *testing.T) {
	p := prepared(t, task("t", "q", "a"))
	cfg := DefaultRunConfig()
	cfg.TaskTimeout = 10 * time.Millisecond
	sys := &racy{}
	res, err := Run(t.Context(), p, systems.Spec{System: "racy", Config: "x", Hash: "h",
		New: func(systems.Options) (systems.System, error) { return sys, nil }}, cfg)
	require.NoError(t, err)
	if !strings.Contains(res.Tasks[0].Err, "timed out") {
		t.Errorf("task error = %q, want a timeout", res.Tasks[0].Err)
	}
	if sys.ids != nil {
		t.Error("Close was not called after the abandoned search returned")
	}
}

func TestRunDoesNotCloseASystemThatNeverReturns(t *testing.T) {
	p := prepared(t, task("t", "hang-forever", "a"))
	cfg := DefaultRunConfig()
	cfg.TaskTimeout, cfg.AbandonWait = 10*time.Millisecond, 20*time.Millisecond
	closed := false
	sys := &closeSpy{scripted: scripted{}, closed: &closed}
	_, err := Run(t.Context(), p, systems.Spec{System: "stuck", Config: "x", Hash: "h",
		New: func(systems.Options) (systems.System, error) { return sys, nil }}, cfg)
	if err == nil || !strings.Contains(err.Error(), "did not return") {
		t.Errorf("Run error = %v, want the cell to fail naming the stuck search", err)
	}
	if closed {
		t.Error("Close raced a Search that is still running")
	}
}

type closeSpy struct {
	scripted
	closed *bool
}

func (s *closeSpy) Close() error { *s.closed = true; return nil }

func TestLocationHitsAreJudged(t *testing.T) {
	ds := &datasets.Dataset{Name: "unit", Split: "all",
		Corpora: map[string]*corpus.Corpus{"r": {ID: "r", Docs: []corpus.Doc{
			{ID: "a.py", Path: "a.py", Kind: "file", Text: "x = 1\n"}, {ID: "b.py", Path: "b.py", Kind: "file", Text: "y = 2\n"},
		}}},
		Tasks: []datasets.Task{{ID: "t", Query: "q", CorpusID: "r", Gold: []datasets.Relevant{{Kind: "file", ID: "b.py", Grade: 1}}}},
	}
	p, err := Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	cfg := DefaultRunConfig()
	cfg.Measures = []metrics.Measure{metrics.Hit.At(1), metrics.MRR.At(0)}
	for _, tt := range []struct {
		name string
		hits []systems.Hit
		mrr  float64
		err  string
	}{
		{"paths", []systems.Hit{{Path: "a.py", StartLine: 1}, {Path: "b.py"}}, 0.5, ""},
		{"escape", []systems.Hit{{Path: "../etc/passwd"}}, 0, "not a clean corpus-relative path"},
		{"absolute", []systems.Hit{{Path: "/etc/passwd"}}, 0, "not a clean corpus-relative path"},
		{"bad-lines", []systems.Hit{{Path: "a.py", StartLine: 5, EndLine: 2}}, 0, "bad line range"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sys := &scripted{answers: map[string][]systems.Hit{"q": tt.hits}}
			res, err := Run(t.Context(), p, spec(sys), cfg)
			require.NoError(t, err)
			tr := res.Tasks[0]
			if tt.err != "" {
				if !strings.Contains(tr.Err, tt.err) {
					t.Errorf("task error = %q, want %q", tr.Err, tt.err)
				}
				return
			}
			if tr.Err != "" || tr.Values[1] != tt.mrr {
				t.Errorf("mrr = %v (err %q), want %v", tr.Values[1], tr.Err, tt.mrr)
			}
		})
	}
}

func TestCompositeSystemDefinesRankOneOnly(t *testing.T) {
	p := prepared(t, task("t", "q1", "a"))
	s := spec(&scripted{answers: map[string][]systems.Hit{"q1": {{Text: "a"}}}})
	s.Composite = true
	res, err := Run(t.Context(), p, s, DefaultRunConfig())
	require.NoError(t, err)
	var got []string
	for _, m := range res.Measures {
		got = append(got, m.String())
	}
	if diff := cmp.Diff([]string{"hit@1"}, got); diff != "" {
		t.Errorf("measures of a composite system (-want +got):\n%s", diff)
	}
	if res.Undefined["ndcg@10"] == "" {
		t.Errorf("undefined = %v, want ndcg@10 with its reason", res.Undefined)
	}
}

func TestDefaultMeasuresIsACopy(t *testing.T) {
	a := DefaultMeasures()
	a[0] = metrics.MAP.At(0)
	if DefaultMeasures()[0] != metrics.Hit.At(1) {
		t.Error("DefaultMeasures returns a shared slice: one caller's edit changes every later run")
	}
}

func TestUndefinedMeasuresAreAbsent(t *testing.T) {
	p := prepared(t, task("t", "q1", "a"))
	p.Dataset.Undefined = map[string]string{"mrr": "composite run: one blob, only rank-1 measures"}
	cfg := DefaultRunConfig()
	cfg.Measures = []metrics.Measure{metrics.Hit.At(1), metrics.MRR.At(0)}
	res, err := Run(t.Context(), p, spec(&scripted{answers: map[string][]systems.Hit{"q1": hits("a")}}), cfg)
	require.NoError(t, err)
	if len(res.Measures) != 1 || res.Measures[0].String() != "hit@1" {
		t.Errorf("measures = %v, want only hit@1", res.Measures)
	}
	if _, ok := res.Undefined["mrr"]; !ok {
		t.Errorf("undefined = %v, want mrr with its reason", res.Undefined)
	}
}

// runFixed runs q1..q3 against answers and returns its golden form.
func runFixed(t *testing.T, answers map[string][]systems.Hit) (*Result, *goldenfmt.Golden) {
	t.Helper()
	p := prepared(t, task("t1", "q1", "a"), task("t2", "q2", "b"), task("t3", "q3", "c"))
	cfg := DefaultRunConfig()
	cfg.Measures = []metrics.Measure{metrics.Hit.At(1), metrics.MRR.At(0)}
	res, err := Run(t.Context(), p, spec(&scripted{answers: answers}), cfg)
	require.NoError(t, err)
	return res, NewGolden(res, 0, "deterministic")
}

func TestCheckGolden(t *testing.T) {
	base := map[string][]systems.Hit{"q1": hits("a"), "q2": hits("a", "b"), "q3": hits("c")}
	_, golden := runFixed(t, base)

	t.Run("equal passes", func(t *testing.T) {
		res, _ := runFixed(t, base)
		v := CheckGolden(golden, res, 0)
		if !v.OK() || len(v.Improvements) != 0 {
			t.Errorf("verdict = %+v, want a clean pass", v)
		}
	})
	t.Run("drop fails and names the flipped task", func(t *testing.T) {
		res, _ := runFixed(t, map[string][]systems.Hit{"q1": hits("b", "c", "a"), "q2": hits("a", "b"), "q3": hits("c")})
		v := CheckGolden(golden, res, 0)
		require.False(t, v.OK())
		joined := strings.Join(v.Failures, "\n")
		for _, want := range []string{"hit@1: 0.6667 → 0.3333", "−1 task: t1 rank 1 → rank 3", "mrr: 0.8333 → 0.6111"} {
			if !strings.Contains(joined, want) {
				t.Errorf("failures %q lack %q", joined, want)
			}
		}
	})
	t.Run("lost task says lost", func(t *testing.T) {
		res, _ := runFixed(t, map[string][]systems.Hit{"q1": hits("b"), "q2": hits("a", "b"), "q3": hits("c")})
		v := CheckGolden(golden, res, 0)
		if !strings.Contains(strings.Join(v.Failures, "\n"), "t1 lost rank 1") {
			t.Errorf("failures = %q, want t1 lost rank 1", v.Failures)
		}
	})
	t.Run("improvement passes and is reported", func(t *testing.T) {
		res, _ := runFixed(t, map[string][]systems.Hit{"q1": hits("a"), "q2": hits("b"), "q3": hits("c")})
		v := CheckGolden(golden, res, 0)
		if !v.OK() || len(v.Improvements) != 2 {
			t.Errorf("verdict = %+v, want pass with 2 improvements", v)
		}
	})
	t.Run("tolerance absorbs a small drop", func(t *testing.T) {
		g := *golden
		g.Tolerance = 0.4
		res, _ := runFixed(t, map[string][]systems.Hit{"q1": hits("b", "a"), "q2": hits("a", "b"), "q3": hits("c")})
		if v := CheckGolden(&g, res, 0.4); !v.OK() {
			t.Errorf("failures = %q, want pass within tolerance 0.4", v.Failures)
		}
	})
	t.Run("stale hashes fail", func(t *testing.T) {
		res, _ := runFixed(t, base)
		g := *golden
		g.DataHash, g.ConfigHash = "old-data", "old-config"
		v := CheckGolden(&g, res, 0)
		joined := strings.Join(v.Failures, "\n")
		if !strings.Contains(joined, "stale baseline: data hash") || !strings.Contains(joined, "stale baseline: config hash") {
			t.Errorf("failures = %q, want both stale-baseline messages", v.Failures)
		}
	})
	t.Run("a file's tolerance cannot loosen the check", func(t *testing.T) {
		g := *golden
		g.Tolerance = 0.4 // edited by hand; the config says 0
		res, _ := runFixed(t, map[string][]systems.Hit{"q1": hits("b", "a"), "q2": hits("a", "b"), "q3": hits("c")})
		v := CheckGolden(&g, res, 0)
		joined := strings.Join(v.Failures, "\n")
		if !strings.Contains(joined, "golden tolerance 0.4000 ≠ the config's 0.0000") || !strings.Contains(joined, "hit@1: 0.6667 → 0.3333") {
			t.Errorf("failures = %q, want the tolerance mismatch and the drop judged at the config's tolerance", v.Failures)
		}
	})
	t.Run("a measure without a baseline fails", func(t *testing.T) {
		res, _ := runFixed(t, base)
		g := *golden
		g.Metrics = map[string]resultfmt.Stat{"hit@1": golden.Metrics["hit@1"]} // mrr added to the measures since
		v := CheckGolden(&g, res, 0)
		if !strings.Contains(strings.Join(v.Failures, "\n"), "mrr: measured (0.8333) but not in golden") {
			t.Errorf("failures = %q, want mrr without a baseline to fail", v.Failures)
		}
	})
	t.Run("changed versions are shown", func(t *testing.T) {
		res, _ := runFixed(t, base)
		g := *golden
		g.Versions = map[string]string{"go": res.Versions["go"], "onnxruntime": "1.29.0"}
		res.Versions["onnxruntime"] = "1.30.0"
		v := CheckGolden(&g, res, 0)
		if diff := cmp.Diff([]string{"onnxruntime: 1.29.0 → 1.30.0"}, v.Versions, cmpopts.IgnoreSliceElements(func(s string) bool { return !strings.HasPrefix(s, "onnx") })); diff != "" {
			t.Errorf("versions (-want +got):\n%s", diff)
		}
	})
	t.Run("measure missing from the run fails", func(t *testing.T) {
		res, _ := runFixed(t, base)
		g := *golden
		g.Metrics = map[string]resultfmt.Stat{"ndcg@10": {Mean: 0.5}}
		if v := CheckGolden(&g, res, 0); v.OK() {
			t.Error("a golden measure the run does not compute must fail")
		}
	})
}

func TestGoldenRoundTripIsByteStable(t *testing.T) {
	_, g := runFixed(t, map[string][]systems.Hit{"q1": hits("a"), "q2": hits("a", "b"), "q3": hits("c")})
	path := t.TempDir() + "/x/y.json"
	require.NoError(t, goldenfmt.Write(path, g))
	back, err := goldenfmt.Read(path)
	require.NoError(t, err)
	b1, err := g.Marshal()
	require.NoError(t, err)
	b2, err := back.Marshal()
	require.NoError(t, err)
	if diff := cmp.Diff(string(b1), string(b2)); diff != "" {
		t.Errorf("golden changed through a write/read cycle (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(b1), `"mean": 0.8333`) {
		t.Errorf("golden lacks four-decimal mean:\n%s", b1)
	}
	if _, err := goldenfmt.Read(t.TempDir() + "/none.json"); !errors.Is(err, goldenfmt.ErrMissing) {
		t.Errorf("goldenfmt.Read(missing) = %v, want goldenfmt.ErrMissing", err)
	}
}

func TestCompositeJudgesOneBudgetedBlob(t *testing.T) {
	ds := &datasets.Dataset{Name: "unit", Split: "all", CompositeBudget: 10,
		Corpora: map[string]*corpus.Corpus{"r": {ID: "r", Docs: []corpus.Doc{
			{ID: "a", Text: "aaaaaa"}, {ID: "b", Text: "bbbb"}, {ID: "c", Text: "cccc"},
		}}},
		Tasks: []datasets.Task{task("in-budget", "q1", "b"), task("over-budget", "q1", "c"), task("first-always", "q2", "c")},
	}
	p, err := Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	cfg := DefaultRunConfig()
	cfg.Measures = []metrics.Measure{metrics.Hit.At(1)}
	sys := &scripted{answers: map[string][]systems.Hit{"q1": hits("a", "b", "c"), "q2": hits("c", "a")}}
	res, err := Run(t.Context(), p, spec(sys), cfg)
	require.NoError(t, err)
	got := map[string]float64{}
	for _, tr := range res.Tasks {
		got[tr.ID] = tr.Values[0]
	}
	// a (6) + b (4) fill the 10-character budget; c falls outside it.
	want := map[string]float64{"in-budget": 1, "over-budget": 0, "first-always": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("composite hit@1 (-want +got):\n%s", diff)
	}
}

func TestWholeFilesJoinsSections(t *testing.T) {
	file := "# Title\nintro\n\n## Install\npip install x\n\n## Use\nrun x\n"
	c := &corpus.Corpus{ID: "r", Docs: []corpus.Doc{
		{ID: "a.py", Path: "a.py", Kind: "file", Language: "python", Text: "x = 1\n"},
		// Sections as datasets/cases cuts them: lines [from, to), blank
		// sections dropped.
		{ID: "d.md", Path: "d.md", Kind: "doc_section", StartLine: 1, EndLine: 3, Text: "# Title\nintro\n"},
		{ID: "d.md#install", Path: "d.md", Kind: "doc_section", StartLine: 4, EndLine: 6, Text: "## Install\npip install x\n"},
		{ID: "d.md#use", Path: "d.md", Kind: "doc_section", StartLine: 7, EndLine: 9, Text: "## Use\nrun x\n"},
	}}
	got := WholeFiles(c)
	want := []corpus.Doc{c.Docs[0], {ID: "d.md", Path: "d.md", Kind: "file", Text: file}}
	if diff := cmp.Diff(want, got.Docs); diff != "" {
		t.Errorf("WholeFiles (-want +got):\n%s", diff)
	}
	if solo := (&corpus.Corpus{Docs: c.Docs[:1]}); WholeFiles(solo) != solo {
		t.Error("a corpus of whole files is not returned as is")
	}
}

// TestDataHashNamesEveryMetaField guards the data hash: it names the fields
// of datasets.Meta one by one (a new field must not make every baseline
// stale), so a field added to Meta must be added there deliberately — or
// left out, with a reason — and this list with it.
func TestDataHashNamesEveryMetaField(t *testing.T) {
	hashed := []string{"Repo", "Intent", "Library", "QAType", "Difficulty", "Language"}
	// Left out, with the reason.
	notHashed := map[string]string{"Naming": "derived from the query and the gold's name, both hashed (datasets/repoqa.QueryNaming)"}
	var fields []string
	rt := reflect.TypeOf(datasets.Meta{})
	for i := 0; i < rt.NumField(); i++ {
		if _, ok := notHashed[rt.Field(i).Name]; !ok {
			fields = append(fields, rt.Field(i).Name)
		}
	}
	if diff := cmp.Diff(hashed, fields); diff != "" {
		t.Errorf("datasets.Meta changed; decide what Prepare hashes of it (-hashed +fields):\n%s", diff)
	}
	// A filled field changes the hash; the spelling is the one baselines
	// were made with (fmt.Sprint of the six fields).
	mk := func(m datasets.Meta) string {
		ds := &datasets.Dataset{Name: "u", Split: "all", Corpora: map[string]*corpus.Corpus{"r": {ID: "r", Docs: docs("a")}},
			Tasks: []datasets.Task{{ID: "t", Query: "q", CorpusID: "r", Meta: m, Gold: []datasets.Relevant{{Kind: "doc", ID: "a", Grade: 1}}}}}
		p, err := Prepare(ds, chunk.DefaultOptions())
		require.NoError(t, err)
		return p.Hash
	}
	base := mk(datasets.Meta{})
	for _, m := range []datasets.Meta{{Repo: "x"}, {QAType: "x"}, {Language: "x"}} {
		if mk(m) == base {
			t.Errorf("meta %+v does not change the data hash", m)
		}
	}
	if mk(datasets.Meta{Naming: "exact"}) != base {
		t.Errorf("Naming changes the data hash: %s", notHashed["Naming"])
	}
}

func TestLibraryResolution(t *testing.T) {
	tk := task("t", "q1", "a")
	tk.Meta.Library = "Numpy"
	tk2 := task("u", "q2", "a")
	tk2.Meta.Library = "Pandas"
	p := prepared(t, tk, tk2)
	s := spec(&scripted{answers: map[string][]systems.Hit{
		"q1": {{Text: "a", Library: "/numpy/numpy"}},
		"q2": {{Text: "a", Library: "/numpy/numpy"}},
	}})
	s.Composite = true
	res, err := Run(t.Context(), p, s, DefaultRunConfig())
	require.NoError(t, err)
	col, ok := res.Column("library_resolution@1")
	require.True(t, ok, "measures %v lack library_resolution@1", res.Measures)
	if diff := cmp.Diff([]float64{1, 0}, col); diff != "" {
		t.Errorf("library_resolution@1 per task (-want +got):\n%s", diff)
	}
}

// noticing is a scripted system that notices things without failing (a
// systems.Warner) and reports an index an earlier run built (a
// systems.IndexReporter), as an external system with a warm cache does.
type noticing struct {
	scripted
	pending []string
}

func (s *noticing) Index(ctx context.Context, c *corpus.Corpus) error {
	s.pending = append(s.pending, "the tool ignored 1 file")
	return s.scripted.Index(ctx, c)
}

func (s *noticing) Search(ctx context.Context, q string, k int) ([]systems.Hit, error) {
	if q == "q2" {
		s.pending = append(s.pending, "1 of 1 hits named a path outside the corpus")
	}
	return s.scripted.Search(ctx, q, k)
}

func (s *noticing) Warnings() []string {
	w := s.pending
	s.pending = nil
	return w
}

func (s *noticing) IndexReport() systems.IndexReport {
	return systems.IndexReport{Reused: true, BuildTime: 90 * time.Second}
}

// TestRunWarningsAndIndexReuse: each warning lands on the task (or the
// corpus's index) it arose in and reaches the records and the cell file; a
// reused index is counted with its original build time.
func TestRunWarningsAndIndexReuse(t *testing.T) {
	p := prepared(t, task("t1", "q1", "a"), task("t2", "q2", "a"), task("t3", "q1", "a"))
	sys := &noticing{scripted: scripted{answers: map[string][]systems.Hit{"q1": hits("a"), "q2": hits("b")}}}
	res, err := Run(t.Context(), p, spec(sys), DefaultRunConfig())
	require.NoError(t, err)
	got := map[string][]string{}
	for _, r := range res.Records(nil, false) {
		got[r.Task] = r.Warnings
	}
	want := map[string][]string{"t1": nil, "t2": {"1 of 1 hits named a path outside the corpus"}, "t3": nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record warnings (-want +got):\n%s", diff)
	}
	c := res.Cell(0, "")
	if c.IndexReused != 1 || c.IndexBuildSeconds != 90 {
		t.Errorf("cell index: reused %d, built %v s; want 1 reused, built in 90 s (the earlier run's time, not this run's %v)", c.IndexReused, c.IndexBuildSeconds, res.IndexTime)
	}
	if diff := cmp.Diff([]string{"r: the tool ignored 1 file"}, c.Warnings); diff != "" || c.WarnedTasks != 1 {
		t.Errorf("cell warnings (-want +got):\n%s\nwarned tasks %d, want 1 (t2)", diff, c.WarnedTasks)
	}
	plain, err := Run(t.Context(), p, spec(&scripted{answers: sys.answers}), DefaultRunConfig())
	require.NoError(t, err)
	if c := plain.Cell(0, ""); c.IndexReused != 0 || c.IndexBuildSeconds != 0 || c.Warnings != nil {
		t.Errorf("a system with neither capability: cell %+v, want no reuse and no warnings", c)
	}
	// The build classes: the reused index recorded none ("unknown"); the
	// one built now was timed here.
	if diff := cmp.Diff([]string{"unknown"}, res.IndexBuildCPUClasses); diff != "" {
		t.Errorf("reused build's CPU classes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{plain.CPUClass}, plain.IndexBuildCPUClasses); diff != "" || plain.CPUClass == "" {
		t.Errorf("fresh build's CPU classes (-want +got):\n%s", diff)
	}
}

// embedding is a scripted system that reports its embedding model
// (systems.ModelReporter), as dense does.
type embedding struct{ scripted }

func (*embedding) Models() []systems.ModelInfo {
	return []systems.ModelInfo{{ID: "m", Source: "folder", Dimension: 8, Parameters: 1234, Engine: systems.EngineInProcess}}
}

// TestRunModels: the model a system reports reaches its cell file once,
// however many corpora it indexed; a system that reports none has none.
func TestRunModels(t *testing.T) {
	p := prepared(t, task("t1", "q1", "a"), task("t2", "q2", "a"))
	sys := &embedding{scripted{answers: map[string][]systems.Hit{"q1": hits("a")}}}
	res, err := Run(t.Context(), p, spec(sys), DefaultRunConfig())
	require.NoError(t, err)
	want := []resultfmt.CellModel{{ID: "m", Source: "folder", Dimension: 8, Parameters: 1234, Engine: "in-process"}}
	if diff := cmp.Diff(want, res.Cell(0, "").Models); diff != "" {
		t.Errorf("cell models (-want +got):\n%s", diff)
	}
	plain, err := Run(t.Context(), p, spec(&scripted{answers: sys.answers}), DefaultRunConfig())
	require.NoError(t, err)
	if m := plain.Cell(0, "").Models; m != nil {
		t.Errorf("a lexical system's cell has models %+v", m)
	}
}

// TestCheckGoldenLower: a measure whose Def says lower is better fails the
// golden check when it rises and is an improvement when it falls — read
// from the measure's value, whatever its name.
func TestCheckGoldenLower(t *testing.T) {
	// misses counts the ranked docs before the first relevant one (the
	// whole list when none is): lower is better.
	misses := &metrics.Def{Name: "misses", Cut: metrics.WholeList, Lower: true, Score: func(r *metrics.Ranking, k int) float64 {
		for i, g := range r.Grades {
			if g > 0 {
				return float64(i)
			}
		}
		return float64(len(r.Grades))
	}}
	run := func(answers map[string][]systems.Hit) *Result {
		t.Helper()
		p := prepared(t, task("t1", "q1", "a"), task("t2", "q2", "b"), task("t3", "q3", "c"))
		cfg := DefaultRunConfig()
		cfg.Measures = []metrics.Measure{misses.At(0)}
		res, err := Run(t.Context(), p, spec(&scripted{answers: answers}), cfg)
		require.NoError(t, err)
		return res
	}
	golden := NewGolden(run(map[string][]systems.Hit{"q1": hits("a"), "q2": hits("a", "b"), "q3": hits("c")}), 0, "deterministic")
	worse := CheckGolden(golden, run(map[string][]systems.Hit{"q1": hits("b", "c", "a"), "q2": hits("a", "b"), "q3": hits("c")}), 0)
	if worse.OK() || !strings.Contains(strings.Join(worse.Failures, "\n"), "misses: 0.3333 → 1.0000") {
		t.Errorf("misses rose 0.33 → 1: failures %q, improvements %q; want a failure", worse.Failures, worse.Improvements)
	}
	better := CheckGolden(golden, run(map[string][]systems.Hit{"q1": hits("a"), "q2": hits("b"), "q3": hits("c")}), 0)
	if !better.OK() || len(better.Improvements) != 1 {
		t.Errorf("misses fell 0.33 → 0: failures %q, improvements %q; want one improvement", better.Failures, better.Improvements)
	}
}
