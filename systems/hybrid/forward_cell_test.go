package hybrid_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/matrix"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/graph"
	"github.com/retrievalbench/retrievalbench/systems/hybrid"
	"github.com/retrievalbench/retrievalbench/systems/systemstest"
)

// noticer is a member that finds the corpus's first doc, warns at Index
// and at every search, reuses an index an earlier run built in 7 s, and
// has 12-dimensional vectors, and bounds its own searches at 5 s while
// each takes 60 ms: an external or dense member, as a wrapper sees it.
type noticer struct {
	docs  []corpus.Doc
	warns []string
}

func (n *noticer) Index(_ context.Context, c *corpus.Corpus) error {
	n.docs = c.Docs
	n.warns = append(n.warns, "noticer: 1 hit outside the corpus at index")
	return nil
}
func (n *noticer) Search(ctx context.Context, _ string, _ int) ([]systems.Hit, error) {
	select {
	case <-time.After(60 * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	n.warns = append(n.warns, "noticer: the same hit twice")
	return []systems.Hit{{DocID: n.docs[0].ID, Score: 1}}, nil
}
func (n *noticer) Close() error { return nil }
func (n *noticer) Warnings() []string {
	w := n.warns
	n.warns = nil
	return w
}
func (n *noticer) IndexReport() systems.IndexReport {
	return systems.IndexReport{Reused: true, BuildTime: 7 * time.Second}
}
func (n *noticer) VectorDim(context.Context) (int, error) { return 12, nil }
func (n *noticer) SearchTimeout() time.Duration           { return 5 * time.Second }

// twoCorpora is a dataset of two one-doc corpora, prepared.
func twoCorpora(t *testing.T) *harness.Prepared {
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

// TestWrappedMemberReachesRecord: what a hybrid's member or a graph's base
// notices and costs — its warnings at Index (the cell's) and at search (the
// task's), an index it reused, its vector dimension, its own bound on a
// search (above the task timeout here) — reaches the cell's
// result through the wrapper (members.Forward), as it does for the member
// run alone. It lives in hybrid's tests, not matrix's: matrix is in a user
// module's build through benchtest, go mod tidy keeps the code of its
// dependencies' tests, and those must not bring ONNX Runtime through graph
// and dense (TestWalkthrough checks the user module's go.sum).
func TestWrappedMemberReachesRecord(t *testing.T) {
	wrappers := map[string]func() (systems.System, error){
		"alone": func() (systems.System, error) { return &noticer{}, nil },
		"hybrid": func() (systems.System, error) {
			m := func(n string) hybrid.Member {
				return hybrid.Member{Spec: systems.Spec{System: n, Config: "x"}, Weight: 1}
			}
			return hybrid.NewWithMembers(hybrid.Config{Name: "h", Method: hybrid.MethodRRF, K: 60, Depth: 3, Members: []hybrid.Member{m("plain"), m("noticer")}},
				[]systems.System{&systemstest.Script{}, &noticer{}})
		},
		"graph": func() (systems.System, error) {
			cfg := graph.Config{Name: "g", Seeds: 1, Decay: 0.5, MaxCandidates: 10}
			return graph.NewWithBase(cfg, &noticer{})
		},
	}
	for _, name := range []string{"alone", "hybrid", "graph"} {
		t.Run(name, func(t *testing.T) {
			cfg := harness.DefaultRunConfig()
			cfg.CacheDir = t.TempDir()
			cfg.TaskTimeout = 20 * time.Millisecond // below the member's 60 ms searches, within its 5 s bound
			s := systems.Spec{System: "double", Config: name, Hash: name, New: func(systems.Options) (systems.System, error) { return wrappers[name]() }}
			o := matrix.Run(t.Context(), twoCorpora(t), s, cfg)
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			res := o.Result
			if f := res.Failed(); len(f) != 0 {
				t.Errorf("failed tasks %v: the member's own bound (5 s) did not raise the task timeout (20 ms)", f)
			}
			if len(res.Warnings) != 2 || !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "1 hit outside the corpus at index") }) {
				t.Errorf("cell warnings = %q, want the member's at Index, one per corpus", res.Warnings)
			}
			for _, tr := range res.Tasks {
				if !slices.ContainsFunc(tr.Warnings, func(w string) bool { return strings.Contains(w, "the same hit twice") }) {
					t.Errorf("task %s warnings = %q, want the member's at search", tr.ID, tr.Warnings)
				}
			}
			if len(res.IndexReused) != 2 || res.IndexBuildTime < 14*time.Second {
				t.Errorf("index reused on %v, build time %v; want both corpora, at least the member's 2 × 7s", res.IndexReused, res.IndexBuildTime)
			}
			if o.Dimension != 12 || o.DimensionErr != nil {
				t.Errorf("dimension %d (%v), want the member's 12", o.Dimension, o.DimensionErr)
			}
		})
	}
}
