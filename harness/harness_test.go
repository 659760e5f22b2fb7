package harness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
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
		<-make(chan struct{}) // never returns, ignores ctx
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

func TestJudgeCreditsEachGoldUnitOnce(t *testing.T) {
	c := &corpus.Corpus{ID: "r", Docs: docs("a.py#f", "a.py#g", "b.py#h", "c.py#k")}
	task := &datasets.Task{ID: "t", Gold: []datasets.Relevant{
		{Kind: "file", ID: "a.py", Grade: 1},
		{Kind: "file", ID: "c.py", Grade: 2},
	}}
	var ds []*corpus.Doc
	for i := range c.Docs {
		ds = append(ds, &c.Docs[i])
	}
	j := judge(task, ds)
	// The second chunk of a.py earns nothing: a.py is one gold unit.
	if diff := cmp.Diff([]int{1, 0, 0, 2}, j.grade); diff != "" {
		t.Errorf("grades (-want +got):\n%s", diff)
	}
	want := []string{"gold:file:a.py", "hit:a.py#g", "hit:b.py#h", "gold:file:c.py"}
	if diff := cmp.Diff(want, j.units); diff != "" {
		t.Errorf("units (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"gold:file:a.py": 1, "gold:file:c.py": 2}, j.qrels); diff != "" {
		t.Errorf("qrels (-want +got):\n%s", diff)
	}
}

func TestMatchesByKind(t *testing.T) {
	fn := "def add(a, b):\n    # sum\n    return a + b\n"
	doc := corpus.Doc{ID: "m.py#Calc.add", Path: "m.py", Symbol: "Calc.add", Language: "python",
		Text: "def add(a,b):\n    return a+b   # different comment\n"}
	tests := []struct {
		name   string
		r      datasets.Relevant
		want   bool
		reason string
	}{
		{"doc id", datasets.Relevant{Kind: "doc", ID: "m.py#Calc.add"}, true, "exact doc id"},
		{"doc id other", datasets.Relevant{Kind: "doc", ID: "m.py"}, false, "doc ids are not paths"},
		{"file", datasets.Relevant{Kind: "file", ID: "m.py"}, true, "a chunk of a gold file matches"},
		{"test kind is a path", datasets.Relevant{Kind: "test", ID: "m.py"}, true, "test judgments name paths"},
		{"symbol qualified", datasets.Relevant{Kind: "symbol", ID: "Calc.add"}, true, "exact qualified name"},
		{"symbol suffix", datasets.Relevant{Kind: "symbol", ID: "add"}, true, "unqualified name matches the last part"},
		{"symbol partial word", datasets.Relevant{Kind: "symbol", ID: "dd"}, false, "suffix must start at a dot"},
		{"needle", datasets.Relevant{Kind: "needle", Body: fn, Language: "python"}, true, "same tokens, other comments and spacing"},
		{"needle other body", datasets.Relevant{Kind: "needle", Body: "def add(a, b):\n    return a - b\n", Language: "python"}, false, "a different body"},
		{"unknown kind", datasets.Relevant{Kind: "weird", ID: "m.py"}, false, "unknown kinds never match"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := matches(&tc.r, &doc); got != tc.want {
				t.Errorf("matches = %v, want %v (%s)", got, tc.want, tc.reason)
			}
		})
	}
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

func spec(s systems.System) Spec {
	return Spec{System: "scripted", Config: "x", Hash: "h1",
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
	cfg.Measures = []string{"hit@1", "mrr"}
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

func TestRunTimeoutStopsTheCorpus(t *testing.T) {
	p := prepared(t, task("a-hang", "hang", "a"), task("b-next", "q1", "a"))
	cfg := DefaultRunConfig()
	cfg.TaskTimeout = 50 * time.Millisecond
	res, err := Run(t.Context(), p, spec(&scripted{answers: map[string][]systems.Hit{"q1": hits("a")}}), cfg)
	require.NoError(t, err)
	require.Len(t, res.Failed(), 2)
	if !strings.Contains(res.Tasks[0].Err, "timed out") || !strings.Contains(res.Tasks[1].Err, "not run") {
		t.Errorf("errors = %q, %q; want a timeout then not run", res.Tasks[0].Err, res.Tasks[1].Err)
	}
}

func TestUndefinedMeasuresAreAbsent(t *testing.T) {
	p := prepared(t, task("t", "q1", "a"))
	p.Dataset.Undefined = map[string]string{"mrr": "composite run: one blob, only rank-1 measures"}
	cfg := DefaultRunConfig()
	cfg.Measures = []string{"hit@1", "mrr"}
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
func runFixed(t *testing.T, answers map[string][]systems.Hit) (*Result, *Golden) {
	t.Helper()
	p := prepared(t, task("t1", "q1", "a"), task("t2", "q2", "b"), task("t3", "q3", "c"))
	cfg := DefaultRunConfig()
	cfg.Measures = []string{"hit@1", "mrr"}
	res, err := Run(t.Context(), p, spec(&scripted{answers: answers}), cfg)
	require.NoError(t, err)
	return res, NewGolden(res, 0, "deterministic")
}

func TestCompare(t *testing.T) {
	base := map[string][]systems.Hit{"q1": hits("a"), "q2": hits("a", "b"), "q3": hits("c")}
	_, golden := runFixed(t, base)

	t.Run("equal passes", func(t *testing.T) {
		res, _ := runFixed(t, base)
		v := Compare(golden, res)
		if !v.OK() || len(v.Improvements) != 0 {
			t.Errorf("verdict = %+v, want a clean pass", v)
		}
	})
	t.Run("drop fails and names the flipped task", func(t *testing.T) {
		res, _ := runFixed(t, map[string][]systems.Hit{"q1": hits("b", "c", "a"), "q2": hits("a", "b"), "q3": hits("c")})
		v := Compare(golden, res)
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
		v := Compare(golden, res)
		if !strings.Contains(strings.Join(v.Failures, "\n"), "t1 lost rank 1") {
			t.Errorf("failures = %q, want t1 lost rank 1", v.Failures)
		}
	})
	t.Run("improvement passes and is reported", func(t *testing.T) {
		res, _ := runFixed(t, map[string][]systems.Hit{"q1": hits("a"), "q2": hits("b"), "q3": hits("c")})
		v := Compare(golden, res)
		if !v.OK() || len(v.Improvements) != 2 {
			t.Errorf("verdict = %+v, want pass with 2 improvements", v)
		}
	})
	t.Run("tolerance absorbs a small drop", func(t *testing.T) {
		g := *golden
		g.Tolerance = 0.4
		res, _ := runFixed(t, map[string][]systems.Hit{"q1": hits("b", "a"), "q2": hits("a", "b"), "q3": hits("c")})
		if v := Compare(&g, res); !v.OK() {
			t.Errorf("failures = %q, want pass within tolerance 0.4", v.Failures)
		}
	})
	t.Run("stale hashes fail", func(t *testing.T) {
		res, _ := runFixed(t, base)
		g := *golden
		g.DataHash, g.ConfigHash = "old-data", "old-config"
		v := Compare(&g, res)
		joined := strings.Join(v.Failures, "\n")
		if !strings.Contains(joined, "stale baseline: data hash") || !strings.Contains(joined, "stale baseline: config hash") {
			t.Errorf("failures = %q, want both stale-baseline messages", v.Failures)
		}
	})
	t.Run("measure missing from the run fails", func(t *testing.T) {
		res, _ := runFixed(t, base)
		g := *golden
		g.Metrics = map[string]Summary{"ndcg@10": {Mean: 0.5}}
		if v := Compare(&g, res); v.OK() {
			t.Error("a golden measure the run does not compute must fail")
		}
	})
}

func TestGoldenRoundTripIsByteStable(t *testing.T) {
	_, g := runFixed(t, map[string][]systems.Hit{"q1": hits("a"), "q2": hits("a", "b"), "q3": hits("c")})
	path := t.TempDir() + "/x/y.json"
	require.NoError(t, WriteGolden(path, g))
	back, err := ReadGolden(path)
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
	if _, err := ReadGolden(t.TempDir() + "/none.json"); !errors.Is(err, ErrNoGolden) {
		t.Errorf("ReadGolden(missing) = %v, want ErrNoGolden", err)
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
	cfg.Measures = []string{"hit@1"}
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
