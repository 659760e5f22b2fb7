package campaign

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/resultfmt"
	"github.com/retrievalbench/retrievalbench/systems"
)

const formsFixture = "../fixtures/caseforms"

// def is a definition or section as the chunker (or the section cutter)
// names it in its file: the oracle's independent reference, which never
// goes through the qualifier the judge uses.
type def struct{ path, name string }

// formAnswers maps each case of fixtures/caseforms to its gold's definition
// and to a wrong one (a neighbour: the class of a gold method, another
// section of the gold's document), which must earn nothing.
var formAnswers = map[string]struct{ right, wrong def }{
	"py-qualified":        {def{"src/ctxlib/ctx.py", "copy_current_request_context"}, def{"src/ctxlib/ctx.py", "RequestContext.push"}},
	"py-qualified-method": {def{"src/ctxlib/ctx.py", "RequestContext.push"}, def{"src/ctxlib/ctx.py", "RequestContext"}},
	"py-init-package":     {def{"src/ctxlib/__init__.py", "has_request_context"}, def{"src/ctxlib/ctx.py", "copy_current_request_context"}},
	"py-bare":             {def{"src/ctxlib/ctx.py", "copy_current_request_context"}, def{"src/ctxlib/__init__.py", "has_request_context"}},
	"py-class-method":     {def{"src/ctxlib/ctx.py", "RequestContext.push"}, def{"src/ctxlib/ctx.py", "RequestContext"}},
	"py-with-path":        {def{"src/ctxlib/ctx.py", "RequestContext.push"}, def{"src/ctxlib/ctx.py", "copy_current_request_context"}},
	// ctxlib/__init__.py re-exports RequestContext: the name as imported.
	"py-reexport": {def{"src/ctxlib/ctx.py", "RequestContext.push"}, def{"src/ctxlib/ctx.py", "RequestContext"}},
	// The same name defined in two files: the judgment's path says which.
	"py-same-name-path":   {def{"src/ctxlib/testing.py", "RequestContext.push"}, def{"src/ctxlib/ctx.py", "RequestContext.push"}},
	"go-import-path":      {def{"kv/store/store.go", "Store.Get"}, def{"kv/store/store.go", "Store"}},
	"go-package-receiver": {def{"kv/store/store.go", "Store.Get"}, def{"kv/store/store.go", "Store"}},
	"java-package":        {def{"java/org/acme/kv/Cache.java", "Cache.evict"}, def{"java/org/acme/kv/Cache.java", "Cache"}},
	"ts-module":           {def{"web/src/util/index.ts", "slugify"}, def{"kv/store/store.go", "Store.Get"}},
	"md-heading":          {def{"docs/guide.md", "Installation"}, def{"docs/guide.md", "Configuration"}},
	"md-heading-path":     {def{"docs/guide.md", "Configuration"}, def{"docs/guide.md", "Installation"}},
	"rst-heading":         {def{"docs/api.rst", "Timeouts"}, def{"docs/api.rst", "API"}},
	"rst-label-path":      {def{"docs/api.rst", "Timeouts"}, def{"docs/api.rst", "API"}},
}

// oracle answers each case's query ("find <case id with spaces>") with one
// doc — the right or the wrong definition of formAnswers — reported as a
// doc id (a built-in system), as lines (an external system), or as a path
// and a symbol without lines (an external system that names definitions).
type oracle struct {
	wrong bool
	as    string // "doc", "lines" or "symbol"
	docs  map[def]*corpus.Doc
}

func (o *oracle) Index(_ context.Context, c *corpus.Corpus) error {
	o.docs = map[def]*corpus.Doc{}
	for i := range c.Docs {
		d := &c.Docs[i]
		o.docs[def{d.Path, d.Symbol}] = d
	}
	return nil
}

func (o *oracle) Search(_ context.Context, q string, _ int) ([]systems.Hit, error) {
	id := strings.ReplaceAll(strings.TrimPrefix(q, "find "), " ", "-")
	a, ok := formAnswers[id]
	if !ok {
		return nil, fmt.Errorf("no answer for %q", q)
	}
	want := a.right
	if o.wrong {
		want = a.wrong
	}
	d, ok := o.docs[want]
	if !ok {
		return nil, fmt.Errorf("%s: no doc %s in %s", id, want.name, want.path)
	}
	switch o.as {
	case "unplaced":
		// Two names the file does not define, without lines: both point
		// at the whole file.
		return []systems.Hit{{Path: d.Path, Symbol: "nosuch1", Score: 2}, {Path: d.Path, Symbol: "nosuch2", Score: 1}}, nil
	case "lines":
		return []systems.Hit{{Path: d.Path, StartLine: d.StartLine, EndLine: d.EndLine, Score: 1}}, nil
	case "symbol":
		return []systems.Hit{{Path: d.Path, Symbol: d.Symbol, Score: 1}}, nil
	}
	return []systems.Hit{{DocID: d.ID, Score: 1}}, nil
}

func (o *oracle) Close() error { return nil }

func oracleSpec(as string, wrong bool) systems.Spec {
	name := as
	if wrong {
		name += "-wrong"
	}
	return systems.Spec{System: "oracle", Config: name, Hash: name, Bench: systems.Schedule{ToleranceReason: "deterministic"},
		New: func(systems.Options) (systems.System, error) { return &oracle{wrong: wrong, as: as}, nil }}
}

// TestCaseFormsCredited is issue 25's item 3: a case file written in every
// form users write symbols and sections, and a system whose hit is the
// gold, reported each way a hit arrives. Every path that judges credits
// the gold's grade at rank 1 — a go test cell (and the records promote
// reads), a campaign, and score from the campaign's files — and a wrong
// neighbouring definition earns nothing.
func TestCaseFormsCredited(t *testing.T) {
	casesFile, repos := filepath.Join(formsFixture, "cases.jsonl"), filepath.Join(formsFixture, "manifest.json")
	ds, err := cases.Load(casesFile, repos, cases.DefaultConfig())
	require.NoError(t, err)
	require.Len(t, ds.Tasks, len(formAnswers))
	p, err := harness.Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)

	var specs []systems.Spec
	for _, as := range []string{"doc", "lines", "symbol"} {
		specs = append(specs, oracleSpec(as, false), oracleSpec(as, true))
	}
	want := func(s systems.Spec) int {
		if strings.HasSuffix(s.Config, "-wrong") {
			return 0
		}
		return 3
	}
	rc := harness.DefaultRunConfig()
	rc.CacheDir = t.TempDir()
	for _, s := range specs {
		res, err := harness.Run(t.Context(), p, s, rc)
		require.NoError(t, err)
		for _, r := range res.Records(nil, false) {
			checkGrade(t, "go test cell "+s.Name(), r, want(s))
		}
	}

	cfg := DefaultConfig()
	cfg.Cases, cfg.Repos = casesFile, repos
	cfg.CacheDir = t.TempDir()
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	cfg.Specs = specs
	out := t.TempDir()
	res, err := Run(t.Context(), cfg, out)
	require.NoError(t, err)
	for _, f := range res.Campaign.Failures {
		t.Errorf("campaign failure: %+v", f)
	}
	require.Len(t, res.Records, len(specs)*len(formAnswers))
	model := map[string]systems.Spec{}
	for _, s := range specs {
		model[s.Name()] = s
	}
	for _, r := range res.Records {
		checkGrade(t, "campaign "+r.Model(), r, want(model[r.Model()]))
	}

	run, err := campaignfmt.Read(filepath.Join(out, "run.json"))
	require.NoError(t, err)
	recs, err := resultfmt.ReadRecords(filepath.Join(out, "results"))
	require.NoError(t, err)
	_, err = report.ScoreCampaign(run, recs, nil, cfg.Report)
	require.NoError(t, err)
	require.Len(t, recs, len(specs)*len(formAnswers))
	for _, r := range recs {
		checkGrade(t, "score "+r.Model(), r, want(model[r.Model()]))
	}
}

func checkGrade(t *testing.T, path string, r resultfmt.Record, grade int) {
	t.Helper()
	if r.Error != "" || len(r.Hits) != 1 {
		t.Errorf("%s: case %s: error %q, %d hits; want one hit", path, r.Task, r.Error, len(r.Hits))
		return
	}
	h := r.Hits[0]
	if h.Grade != grade {
		t.Errorf("%s: case %s: hit %s graded %d (unit %s), want %d", path, r.Task, h.DocID, h.Grade, h.Unit, grade)
	}
	if hit1 := r.Values["hit@1"]; hit1 != float64(min(grade, 1)) {
		t.Errorf("%s: case %s: hit@1 = %v, want %d", path, r.Task, hit1, min(grade, 1))
	}
}

// TestCampaignRepeatedLocations is the abort of issue 25: an external
// system's path + symbol hits without lines all became "hit:PATH:0-0", and
// the second in a ranking aborted the whole campaign ("retrieved twice").
// Now the second is a repeat of the first's file: scored, not refused.
func TestCampaignRepeatedLocations(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cases, cfg.Repos = filepath.Join(formsFixture, "cases.jsonl"), filepath.Join(formsFixture, "manifest.json")
	cfg.CacheDir = t.TempDir()
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	cfg.Specs = []systems.Spec{oracleSpec("unplaced", false)}
	res, err := Run(t.Context(), cfg, t.TempDir())
	require.NoError(t, err)
	require.Empty(t, res.Campaign.Failures)
	require.Len(t, res.Records, len(formAnswers))
	for _, r := range res.Records {
		if r.Error != "" || len(r.Hits) != 2 || r.Hits[0].Unit == r.Hits[1].Unit {
			t.Errorf("case %s: error %q, hits %+v: want two hits with units of their own", r.Task, r.Error, r.Hits)
		}
		if r.Hits[0].Grade != 0 || r.Values["hit@10"] != 0 {
			t.Errorf("case %s: the whole file earned %d (hit@10 %v): its gold is a definition or section", r.Task, r.Hits[0].Grade, r.Values["hit@10"])
		}
	}
}
