package harness

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/goldenfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
	"github.com/retrievalbench/retrievalbench/systems"
)

// wordCounter counts 500 tokens per word, so that a few words fill the
// budgets (1k … 8k tokens).
type wordCounter struct{ texts []string }

func (w *wordCounter) Count(s string) int {
	w.texts = append(w.texts, s)
	return 500 * len(strings.Fields(s))
}
func (w *wordCounter) ID() string { return "words sha256:0" }

func tokenDataset(t *testing.T) *Prepared {
	ds := &datasets.Dataset{Name: "unit", Split: "all",
		Corpora: map[string]*corpus.Corpus{"r": {ID: "r", Docs: []corpus.Doc{
			{ID: "a.txt", Path: "a.txt", Kind: "file", Text: "w1 w2 w3\nw4 w5\nw6\n"},
			{ID: "b.txt", Path: "b.txt", Kind: "file", Text: "z1 z2"},
		}}},
		Tasks: []datasets.Task{{ID: "t", Query: "q", CorpusID: "r", Gold: []datasets.Relevant{{Kind: "doc", ID: "b.txt", Grade: 1}}}},
	}
	p, err := Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	return p
}

func value(t *testing.T, r *Result, m string) float64 {
	t.Helper()
	col, ok := r.Column(m)
	require.True(t, ok, "measure %s not measured: %v", m, r.Measures)
	return col[0]
}

// TestTokenMeasuresOfHits checks what each hit is counted on — a location
// on the lines of the file it points at, a doc on its text — and the
// budgeted measures the cell reports from those counts.
func TestTokenMeasuresOfHits(t *testing.T) {
	p := tokenDataset(t)
	cfg := DefaultRunConfig()
	cfg.Measures = []metrics.Measure{metrics.Hit.At(10)}
	wc := &wordCounter{}
	cfg.Tokens = wc
	// a.txt lines 2-3 ("w4 w5\nw6\n": 3 words, 1500 tokens), then b.txt
	// by id (2 words, 1000 tokens): the gold, behind 1500 tokens.
	sys := &scripted{answers: map[string][]systems.Hit{"q": {{Path: "a.txt", StartLine: 2, EndLine: 3}, {DocID: "b.txt"}}}}
	res, err := Run(t.Context(), p, spec(sys), cfg)
	require.NoError(t, err)
	require.Empty(t, res.Failed())
	require.Equal(t, "words sha256:0", res.Tokenizer)
	require.Contains(t, wc.texts, "w4 w5\nw6\n", "a location is counted on the lines it points at")
	require.Equal(t, []int{1500, 1000}, []int{res.Tasks[0].Hits[0].Tokens, res.Tasks[0].Hits[1].Tokens})
	require.Equal(t, 2500.0, value(t, res, "tokens@10"))
	require.Equal(t, 0.0, value(t, res, "covered_tok@1000"), "b.txt starts after the budget")
	require.Equal(t, 0.5, value(t, res, "covered_tok@2000"), "b.txt cut: 500 of its 1000 tokens")
	require.Equal(t, 1.0, value(t, res, "covered_tok@4000"))
	require.InDelta(t, 0.5/math.Log2(3), value(t, res, "ndcg_tok@2000"), 1e-12)
	require.InDelta(t, 1/math.Log2(3), value(t, res, "ndcg_tok@8000"), 1e-12)

	recs := res.Records(nil, false)
	require.Equal(t, 1500, recs[0].Hits[0].Tokens)
	require.Equal(t, 0.5, recs[0].Values["covered_tok@2000"])
	require.Equal(t, "words sha256:0", res.Cell(0, "").Tokenizer)
}

// TestTokenMeasuresOfComposite: a composite answer is one hit, all its
// text, cut at the budget; its token measures are kept though its rank
// measures beyond 1 are not defined.
func TestTokenMeasuresOfComposite(t *testing.T) {
	p := tokenDataset(t)
	cfg := DefaultRunConfig()
	cfg.Tokens = &wordCounter{}
	s := spec(&scripted{answers: map[string][]systems.Hit{"q": {{Text: "z1 z2 more"}}}})
	s.Composite = true
	res, err := Run(t.Context(), p, s, cfg)
	require.NoError(t, err)
	require.Empty(t, res.Failed())
	require.Equal(t, 1500, res.Tasks[0].Hits[0].Tokens)
	require.Equal(t, 1500.0, value(t, res, "tokens@10"))
	require.InDelta(t, 1000.0/1500, value(t, res, "covered_tok@1000"), 1e-12, "the blob holds the gold, a third of it is cut")
	require.Equal(t, 1.0, value(t, res, "covered_tok@2000"))
	require.Equal(t, 1.0, value(t, res, "ndcg_tok@2000"))
}

// TestGoldenWithoutTokenMeasures: a golden file made without token
// measures passes a run that has them; one that has them checks them,
// tokens@k as a cost with a relative tolerance, and lists them unchecked
// for a run that counted no tokens (token measures off), which passes.
func TestGoldenWithoutTokenMeasures(t *testing.T) {
	p := tokenDataset(t)
	cfg := DefaultRunConfig()
	cfg.Measures = []metrics.Measure{metrics.Hit.At(10)}
	sys := &scripted{answers: map[string][]systems.Hit{"q": {{Path: "a.txt", StartLine: 2, EndLine: 3}, {DocID: "b.txt"}}}}
	plain, err := Run(t.Context(), p, spec(sys), cfg)
	require.NoError(t, err)
	cfg.Tokens = &wordCounter{}
	counted, err := Run(t.Context(), p, spec(sys), cfg)
	require.NoError(t, err)

	g := NewGolden(plain, 0.01, "")
	require.Empty(t, CheckGolden(g, counted, 0.01).Failures, "token measures need no baseline")
	withTokens := NewGolden(counted, 0.01, "")
	require.Empty(t, CheckGolden(withTokens, counted, 0.01).Failures)
	off := CheckGolden(withTokens, plain, 0.01)
	require.Empty(t, off.Failures, "a run without a tokenizer checks the rest")
	require.Equal(t, []string{"covered_tok@1000", "covered_tok@2000", "covered_tok@4000", "covered_tok@8000",
		"ndcg_tok@1000", "ndcg_tok@2000", "ndcg_tok@4000", "ndcg_tok@8000", "tokens@10"}, off.Unchecked)
	noHit := cloneGolden(withTokens, 2500)
	delete(noHit.Metrics, "hit@10")
	noHit.Metrics["hit@5"] = resultfmt.NewStat(1, 1, 1)
	require.NotEmpty(t, CheckGolden(noHit, plain, 0.01).Failures, "any other measure of the golden must still be measured")

	costlier := cloneGolden(withTokens, 2400) // the run's 2500 is 4% more
	c := CheckGolden(costlier, counted, 0.01)
	require.Len(t, c.Failures, 1)
	require.Contains(t, c.Failures[0], "tokens@10: 2400.0000 → 2500.0000 (more than 1% above the baseline")
	// On a CPU class the golden has no baseline of, a rise in tokens is
	// what near-tie swaps across rank 10 do: excused while the quality
	// measures hold, a failure when one of them fails too.
	otherClass := *counted
	otherClass.CPUClass = "amd64-avx2"
	costlier.CPUClass = "amd64-avx512-vnni"
	c = CheckGolden(costlier, &otherClass, 0.01)
	require.Empty(t, c.Failures)
	require.Len(t, c.Excused, 1)
	require.Contains(t, c.Excused[0], "tokens@10: 2400.0000 → 2500.0000")
	worse := cloneGolden(withTokens, 2400)
	worse.CPUClass = "amd64-avx512-vnni"
	worse.Metrics["ndcg_tok@2000"] = resultfmt.NewStat(0.9, 0.9, 0.9) // the run's is 0.3155: a real drop
	worse.Tasks = nil                                                 // no per-task values: no near-tie excuse
	c = CheckGolden(worse, &otherClass, 0.01)
	require.Len(t, c.Failures, 2, "ndcg_tok@2000 and tokens@10 both fail: %q", c.Failures)
	require.Empty(t, c.Excused)
	exact := cloneGolden(costlier, 2400)
	exact.Tolerance = 0
	c = CheckGolden(exact, &otherClass, 0)
	require.Len(t, c.Failures, 1, "a deterministic config (tolerance 0) is not excused on another class: %q", c.Failures)
	require.Contains(t, c.Failures[0], "tokens@10: 2400.0000 → 2500.0000")
	cheaper := cloneGolden(withTokens, 2600)
	c = CheckGolden(cheaper, counted, 0.01)
	require.Empty(t, c.Failures)
	require.Len(t, c.Improvements, 1, "fewer tokens is better")
}

func cloneGolden(g *goldenfmt.Golden, tokens float64) *goldenfmt.Golden {
	c := *g
	c.Metrics = map[string]resultfmt.Stat{}
	for k, v := range g.Metrics {
		c.Metrics[k] = v
	}
	c.Metrics["tokens@10"] = resultfmt.NewStat(tokens, tokens, tokens)
	return &c
}
