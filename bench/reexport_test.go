package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
)

// flaskDef is a definition of the data pack's flask (SWE-QA corpus) as the
// chunker names it in its file: the test's reference, which never goes
// through the qualifier or the re-exports the judge uses.
type flaskDef struct{ path, symbol string }

// reexportCases are gold symbols written the way flask's users import them
// — through src/flask/__init__.py's "from .app import Flask as Flask" and
// the like — each with the definition a hit must point at to earn it, and
// a wrong one (same name elsewhere, or a neighbour) that must earn nothing.
var reexportCases = []struct {
	id, gold     string
	path         string // the judgment's "path", if any
	right, wrong flaskDef
}{
	{"flask-class", "flask.Flask", "", flaskDef{"src/flask/app.py", "Flask"}, flaskDef{"src/flask/sansio/app.py", "App"}},
	{"flask-method", "flask.Flask.run", "", flaskDef{"src/flask/app.py", "Flask.run"}, flaskDef{"src/flask/app.py", "Flask"}},
	{"flask-function", "flask.copy_current_request_context", "", flaskDef{"src/flask/ctx.py", "copy_current_request_context"}, flaskDef{"src/flask/ctx.py", "after_this_request"}},
	{"flask-wrapper", "flask.Request", "src/flask/wrappers.py", flaskDef{"src/flask/wrappers.py", "Request"}, flaskDef{"src/flask/wrappers.py", "Response"}},
}

// flaskOracle answers "find <case id>" with its right (or wrong) definition,
// reported as a doc id, as the chunk's lines, or as the path and the name
// the user wrote (the re-exported one, no lines).
type flaskOracle struct {
	wrong bool
	as    string
	docs  map[flaskDef]*corpus.Doc
}

func (o *flaskOracle) Index(_ context.Context, c *corpus.Corpus) error {
	o.docs = map[flaskDef]*corpus.Doc{}
	for i := range c.Docs {
		o.docs[flaskDef{c.Docs[i].Path, c.Docs[i].Symbol}] = &c.Docs[i]
	}
	return nil
}

func (o *flaskOracle) Search(_ context.Context, q string, _ int) ([]systems.Hit, error) {
	for _, tc := range reexportCases {
		if q != "find "+tc.id {
			continue
		}
		want := tc.right
		if o.wrong {
			want = tc.wrong
		}
		d, ok := o.docs[want]
		if !ok {
			return nil, fmt.Errorf("%s: the chunker cut no %s in %s", tc.id, want.symbol, want.path)
		}
		switch o.as {
		case "lines":
			return []systems.Hit{{Path: d.Path, StartLine: d.StartLine, EndLine: d.EndLine, Score: 1}}, nil
		case "import-name":
			name := tc.gold // the name as imported, no lines: Define resolves it
			if o.wrong {
				name = d.Symbol
			}
			return []systems.Hit{{Path: d.Path, Symbol: name, Score: 1}}, nil
		}
		return []systems.Hit{{DocID: d.ID, Score: 1}}, nil
	}
	return nil, fmt.Errorf("no case for %q", q)
}

func (o *flaskOracle) Close() error { return nil }

// TestReexportedNamesCredited is issue 25's re-exported names on the real
// flask of the data pack: a case file whose gold symbols are written the
// way users import them (flask.Flask, defined as flask.app.Flask) loads,
// and a go test cell credits a hit on the definition — by doc id, lines,
// or path + the imported name — with the gold's grade, and a wrong
// definition (flask.sansio.app.App, a neighbour) with nothing.
func TestReexportedNamesCredited(t *testing.T) {
	testenv.MustHaveData(t, "swe-qa/corpora/flask.jsonl.gz")
	dir := t.TempDir()
	manifest := filepath.Join(dir, "repos.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"flask": {"datapack": "swe-qa/corpora/flask.jsonl.gz", "commit": "85c5d93cbd049c4bd0679c36fd1ddcae8c37b642"}}`), 0o644))
	var lines []string
	for _, tc := range reexportCases {
		path := ""
		if tc.path != "" {
			path = fmt.Sprintf(`, "path": %q`, tc.path)
		}
		lines = append(lines, fmt.Sprintf(`{"id": %q, "repo": "flask", "intent": "symbol_lookup", "query": "find %s", "relevant": [{"kind": "symbol", "id": %q%s, "grade": 3}]}`, tc.id, tc.id, tc.gold, path))
	}
	casesFile := filepath.Join(dir, "cases.jsonl")
	require.NoError(t, os.WriteFile(casesFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	ds, err := cases.Load(casesFile, manifest, cases.DefaultConfig())
	require.NoError(t, err, "names as flask's users import them must load")
	p, err := harness.Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	rc := harness.DefaultRunConfig()
	rc.CacheDir = t.TempDir()
	for _, as := range []string{"doc", "lines", "import-name"} {
		for _, wrong := range []bool{false, true} {
			name := as
			if wrong {
				name += "-wrong"
			}
			spec := systems.Spec{System: "oracle", Config: name, Hash: name, Bench: systems.Schedule{ToleranceReason: "deterministic"},
				New: func(systems.Options) (systems.System, error) { return &flaskOracle{wrong: wrong, as: as}, nil }}
			res, err := harness.Run(t.Context(), p, spec, rc)
			require.NoError(t, err)
			for _, r := range res.Records(nil, false) {
				want := 3
				if wrong {
					want = 0
				}
				if r.Error != "" || len(r.Hits) != 1 {
					t.Errorf("%s: %s: error %q, %d hits", name, r.Task, r.Error, len(r.Hits))
					continue
				}
				if h := r.Hits[0]; h.Grade != want {
					t.Errorf("%s: %s: hit %s %s %d-%d graded %d (unit %q), want %d", name, r.Task, h.Path, h.Symbol, h.StartLine, h.EndLine, h.Grade, h.Unit, want)
				}
			}
		}
	}
}
