package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/datasets/repoqa"
	"github.com/retrievalbench/retrievalbench/datasets/sweqa"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/builtin"
)

// form is one way of reporting a doc of the corpus as an external system
// would: by location instead of doc id.
type form string

const (
	asLines     form = "lines"      // path + the chunk's line range
	asStartLine form = "start-line" // path + its first line (Codira's lineno)
	asSymbol    form = "symbol"     // path + the chunker's symbol, no lines; a doc without a symbol by its lines
)

// report re-reports a doc of c in form f.
func report(d *corpus.Doc, f form, score float64) systems.Hit {
	h := systems.Hit{Path: d.Path, Score: score}
	switch {
	case d.StartLine <= 0:
		return systems.Hit{DocID: d.ID, Score: score} // no lines to point at
	case f == asSymbol && d.Symbol != "":
		h.Symbol = d.Symbol
	case f == asStartLine:
		h.StartLine = d.StartLine
	default:
		h.StartLine, h.EndLine = d.StartLine, d.EndLine
	}
	return h
}

// reporter is a system that answers with its base system's hits reported
// in form f: the same content, by location.
type reporter struct {
	base systems.System
	f    form
	docs map[string]*corpus.Doc
}

func (r *reporter) Index(ctx context.Context, c *corpus.Corpus) error {
	r.docs = map[string]*corpus.Doc{}
	for i := range c.Docs {
		r.docs[c.Docs[i].ID] = &c.Docs[i]
	}
	return r.base.Index(ctx, c)
}

func (r *reporter) Search(ctx context.Context, q string, k int) ([]systems.Hit, error) {
	return r.SearchQuery(ctx, systems.Query{Text: q}, k)
}

func (r *reporter) SearchQuery(ctx context.Context, q systems.Query, k int) ([]systems.Hit, error) {
	hits, err := systems.SearchQuery(ctx, r.base, q, k)
	if err != nil {
		return nil, err
	}
	out := make([]systems.Hit, len(hits))
	for i, h := range hits {
		d, ok := r.docs[h.DocID]
		if !ok {
			return nil, fmt.Errorf("base returned unknown doc %q", h.DocID)
		}
		out[i] = report(d, r.f, h.Score)
	}
	return out, nil
}

func (r *reporter) Close() error { return r.base.Close() }

func reported(s systems.Spec, f form) systems.Spec {
	base := s.New
	s.Config += "-as-" + string(f)
	s.New = func(opt systems.Options) (systems.System, error) {
		b, err := base(opt)
		if err != nil {
			return nil, err
		}
		return &reporter{base: b, f: f}, nil
	}
	return s
}

// TestReportedFormsScoreAlike is issue 25's invariance: a system's own
// ranked hits, re-reported as line ranges, start lines and path + symbol,
// give every task the values the doc ids gave — for every built-in system
// (each config of BM25, one of each other kind), on RepoQA, SWE-QA and a
// case file.
func TestReportedFormsScoreAlike(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes three datasets with several systems")
	}
	fixtures := filepath.Join("..", "fixtures")
	loads := []struct {
		name string
		load func(t *testing.T) (*datasets.Dataset, error)
	}{
		{"repoqa-fixture", func(*testing.T) (*datasets.Dataset, error) {
			return repoqa.Fixture(filepath.Join(fixtures, "repoqa", "repoqa-fixture.json"), "all", repoqa.DefaultConfig())
		}},
		{"cases-fixture", func(*testing.T) (*datasets.Dataset, error) {
			return cases.Load(filepath.Join(fixtures, "cases", "cases.jsonl"), filepath.Join(fixtures, "cases", "manifest.json"), cases.DefaultConfig())
		}},
		{"swe-qa-seed-mini", func(t *testing.T) (*datasets.Dataset, error) {
			dir := testenv.MustHaveData(t, "pydocs-eval")
			return sweqa.LoadSeed(filepath.Join(dir, "swe_qa_mini.jsonl"), filepath.Join(dir, "swe_qa_corpus.jsonl"))
		}},
	}
	var specs []systems.Spec
	for _, name := range []string{"bm25/unicode61", "bm25/porter", "bm25/code", "bm25/code-weighted", "dense/minilm-l6-q",
		"static/static-tokenlearn", "hybrid/rrf-bm25code-minilm", "graph/bm25code-1hop"} {
		s, ok := builtin.Find(builtin.Specs(), name)
		if !ok {
			t.Fatalf("no built-in system %s", name)
		}
		specs = append(specs, s)
	}
	cache := testenv.CacheDir()
	rc := harness.DefaultRunConfig()
	rc.CacheDir = cache
	for _, l := range loads {
		t.Run(l.name, func(t *testing.T) {
			ds, err := l.load(t)
			if err != nil {
				t.Fatal(err)
			}
			p, err := harness.Prepare(ds, chunk.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range specs {
				t.Run(s.Name(), func(t *testing.T) {
					if s.Requires != nil {
						if req := s.Requires(cache); req != nil {
							testenv.Missing(t, req.Kind, fmt.Sprintf("%s: %s", s.Name(), req.Reason))
						}
					}
					want, err := harness.Run(t.Context(), p, s, rc)
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range []form{asLines, asStartLine, asSymbol} {
						got, err := harness.Run(t.Context(), p, reported(s, f), rc)
						if err != nil {
							t.Fatal(err)
						}
						sameValues(t, string(f), want, got)
					}
				})
			}
		})
	}
}

// sameValues requires every task of got to have the values, error and
// first relevant rank of the same task of want.
func sameValues(t *testing.T, f string, want, got *harness.Result) {
	t.Helper()
	if len(want.Tasks) != len(got.Tasks) {
		t.Fatalf("%s: %d tasks, want %d", f, len(got.Tasks), len(want.Tasks))
	}
	for i, w := range want.Tasks {
		g := got.Tasks[i]
		if w.Err != "" || g.Err != "" {
			t.Errorf("%s: task %s: errors %q (doc ids) and %q (reported)", f, w.ID, w.Err, g.Err)
			continue
		}
		if w.FirstRelevant != g.FirstRelevant {
			t.Errorf("%s: task %s: first relevant rank %d, want %d", f, w.ID, g.FirstRelevant, w.FirstRelevant)
		}
		for k, m := range want.Measures {
			if w.Values[k] != g.Values[k] {
				t.Errorf("%s: task %s: %s = %v, want %v (as doc ids)", f, w.ID, m, g.Values[k], w.Values[k])
			}
		}
	}
}

// reshaped is a system that reports its base system's hits as line ranges
// and then reshapes the list (seeded, so deterministic).
type reshaped struct {
	reporter
	shape func(hits []systems.Hit, r *rand.Rand) []systems.Hit
	seed  uint64
}

func (r *reshaped) SearchQuery(ctx context.Context, q systems.Query, k int) ([]systems.Hit, error) {
	hits, err := r.reporter.SearchQuery(ctx, q, k)
	if err != nil {
		return nil, err
	}
	r.seed++
	return r.shape(hits, rand.New(rand.NewPCG(r.seed, 25))), nil
}

func (r *reshaped) Search(ctx context.Context, q string, k int) ([]systems.Hit, error) {
	return r.SearchQuery(ctx, systems.Query{Text: q}, k)
}

// filler is a hit that points at no file of any corpus: it keeps a rank
// taken so that what follows does not move up.
var filler = systems.Hit{Path: "no/such/file.txt", StartLine: 1, EndLine: 1}

// shapes are the property tests' reshapings of a ranking by line ranges.
var shapes = map[string]func(hits []systems.Hit, r *rand.Rand) []systems.Hit{
	// Every range grows by 0–20 lines on each side.
	"widen": func(hits []systems.Hit, r *rand.Rand) []systems.Hit {
		for i := range hits {
			if h := &hits[i]; h.StartLine > 0 {
				h.StartLine = max(1, h.StartLine-r.IntN(21))
				h.EndLine += r.IntN(21)
			}
		}
		return hits
	},
	// Neighbours in one file become one hit spanning both; the second's
	// rank is taken by a filler, so only the credit can change.
	"merge": func(hits []systems.Hit, r *rand.Rand) []systems.Hit {
		for i := 0; i+1 < len(hits); i++ {
			a, b := &hits[i], &hits[i+1]
			if a.DocID != "" || b.DocID != "" || a.Path != b.Path || r.IntN(2) == 0 {
				continue
			}
			a.StartLine, a.EndLine = min(a.StartLine, b.StartLine), max(a.EndLine, b.EndLine)
			*b = filler
			i++
		}
		return hits
	},
	// Some hits are reported again right after themselves.
	"repeat": func(hits []systems.Hit, r *rand.Rand) []systems.Hit {
		var out []systems.Hit
		for _, h := range hits {
			out = append(out, h)
			if r.IntN(3) == 0 {
				out = append(out, h)
			}
		}
		return out
	},
}

// TestReshapingNeverRaises is issue 25's property: widening a hit's
// range, merging neighbouring hits or repeating a hit never raises any
// measure of any task (BM25's hits on RepoQA and the case fixture, every
// shape under three seeds).
func TestReshapingNeverRaises(t *testing.T) {
	fixtures := filepath.Join("..", "fixtures")
	repo, err := repoqa.Fixture(filepath.Join(fixtures, "repoqa", "repoqa-fixture.json"), "all", repoqa.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	cs, err := cases.Load(filepath.Join(fixtures, "cases", "cases.jsonl"), filepath.Join(fixtures, "cases", "manifest.json"), cases.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	base, ok := builtin.Find(builtin.Specs(), "bm25/code-weighted")
	if !ok {
		t.Fatal("no bm25/code-weighted")
	}
	rc := harness.DefaultRunConfig()
	rc.CacheDir = t.TempDir()
	rc.Depth = 20
	for _, ds := range []*datasets.Dataset{repo, cs} {
		p, err := harness.Prepare(ds, chunk.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		want, err := harness.Run(t.Context(), p, base, rc)
		if err != nil {
			t.Fatal(err)
		}
		for name, shape := range shapes {
			for seed := range uint64(3) {
				s := base
				s.Config = fmt.Sprintf("%s-%s-%d", base.Config, name, seed)
				s.New = func(opt systems.Options) (systems.System, error) {
					b, err := base.New(opt)
					if err != nil {
						return nil, err
					}
					return &reshaped{reporter: reporter{base: b, f: asLines}, shape: shape, seed: seed * 1000}, nil
				}
				got, err := harness.Run(t.Context(), p, s, rc)
				if err != nil {
					t.Fatal(err)
				}
				raised := 0
				for i, w := range want.Tasks {
					g := got.Tasks[i]
					if g.Err != "" {
						t.Errorf("%s %s: task %s failed: %s", ds.Name, s.Config, g.ID, g.Err)
					}
					for k, m := range want.Measures {
						if g.Values[k] > w.Values[k]+1e-12 {
							raised++
							t.Errorf("%s %s: task %s: %s rose %v → %v", ds.Name, s.Config, g.ID, m, w.Values[k], g.Values[k])
						}
					}
				}
				if raised == 0 && name == "widen" && seed == 0 {
					// The shape must change something, or the property is empty.
					lower := false
					for i, w := range want.Tasks {
						for k := range want.Measures {
							lower = lower || got.Tasks[i].Values[k] < w.Values[k]
						}
					}
					if !lower {
						t.Errorf("%s: widening changed no value: the test tests nothing", ds.Name)
					}
				}
			}
		}
	}
}
