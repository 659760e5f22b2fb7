package campaign

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/resultfmt"
	"github.com/retrievalbench/retrievalbench/systems/external"
)

// deepFixture is a repository with definitions at every nesting level
// (testdata/deep/repos/deep): a class with a method holding a nested
// function and a nested class with a method, a function holding a class
// with a method, and a Go type with a method.
const deepFixture = "testdata/deep"

// deepDef is a definition of deepFixture, where the parser puts it, and
// the gold of the cases that name it.
type deepDef struct {
	path, name string
	start, end int    // the definition's lines (a comment or docstring above it included)
	defLine    int    // the line its keyword is on (a tool's "start line")
	parent     string // the definition holding it ("" for none)
	chunk      string // the chunk id a built-in system returns for it: its own, or the chunk holding it
	chunkEarns int    // what that chunk earns against the case's gold (T 3, parent 2, file 1)
	trailBlank bool   // the line after it is blank (a tool may report it too)
	notChunked bool   // the chunker does not cut it out (a nested definition)
}

var deepDefs = []deepDef{
	{path: "pkg/app.py", name: "Outer", start: 4, end: 20, defLine: 4, chunk: "pkg/app.py#Outer@L4-L20", chunkEarns: 3, trailBlank: true},
	{path: "pkg/app.py", name: "Outer.method", start: 7, end: 13, defLine: 7, parent: "Outer", chunk: "pkg/app.py#Outer.method@L7-L13", chunkEarns: 3, trailBlank: true},
	{path: "pkg/app.py", name: "Outer.method.helper", start: 10, end: 11, defLine: 10, parent: "Outer.method", chunk: "pkg/app.py#Outer.method@L7-L13", chunkEarns: 2, trailBlank: true, notChunked: true},
	{path: "pkg/app.py", name: "Outer.Inner", start: 15, end: 20, defLine: 15, parent: "Outer", chunk: "pkg/app.py#Outer.Inner@L15-L20", chunkEarns: 3, trailBlank: true},
	{path: "pkg/app.py", name: "Outer.Inner.deep", start: 18, end: 20, defLine: 18, parent: "Outer.Inner", chunk: "pkg/app.py#Outer.Inner.deep@L18-L20", chunkEarns: 3, trailBlank: true},
	{path: "pkg/app.py", name: "top", start: 23, end: 30, defLine: 23, chunk: "pkg/app.py#top@L23-L30", chunkEarns: 3},
	{path: "pkg/app.py", name: "top.Local", start: 26, end: 28, defLine: 26, parent: "top", chunk: "pkg/app.py#top@L23-L30", chunkEarns: 2, trailBlank: true, notChunked: true},
	{path: "pkg/app.py", name: "top.Local.run", start: 27, end: 28, defLine: 27, parent: "top.Local", chunk: "pkg/app.py#top@L23-L30", chunkEarns: 1, trailBlank: true, notChunked: true},
	{path: "pkg/store.go", name: "Store", start: 3, end: 6, defLine: 4, chunk: "pkg/store.go#Store@L3-L6", chunkEarns: 3, trailBlank: true},
	{path: "pkg/store.go", name: "Store.Get", start: 8, end: 11, defLine: 9, chunk: "pkg/store.go#Store.Get@L8-L11", chunkEarns: 3},
}

// deepHit is one hit as the replayed external system returns it.
type deepHit struct {
	File  string     `json:"file,omitempty"`
	Lines *deepLines `json:"lines,omitempty"`
	Name  string     `json:"name,omitempty"`
	ID    string     `json:"id,omitempty"`
	Score float64    `json:"score"`
}

type deepLines struct {
	Start int `json:"start"`
	End   int `json:"end,omitempty"`
}

// deepCase is one case of the test: its gold, the hits the system returns
// and the grade each hit must earn.
type deepCase struct {
	id, query string
	gold      []map[string]any
	hits      []deepHit
	want      []int
}

// deepCases builds one case per definition and hit shape — path + lines
// (exact, with the blank line after, the start line alone), path + symbol,
// both, a path alone, a doc id — whose gold is the definition (3), the
// definition holding it (2) and its file (1); and one case whose ranking
// mixes shapes, with repeats.
func deepCases() []deepCase {
	var out []deepCase
	for _, d := range deepDefs {
		gold := []map[string]any{{"kind": "symbol", "id": d.name, "path": d.path, "grade": 3}, {"kind": "file", "path": d.path, "grade": 1}}
		if d.parent != "" {
			gold = append(gold, map[string]any{"kind": "symbol", "id": d.parent, "path": d.path, "grade": 2})
		}
		shapes := []struct {
			name string
			hit  deepHit
			want int
		}{
			{"lines", deepHit{File: d.path, Lines: &deepLines{d.start, d.end}}, 3},
			{"start line", deepHit{File: d.path, Lines: &deepLines{Start: d.defLine}}, 3},
			{"keyword lines", deepHit{File: d.path, Lines: &deepLines{d.defLine, d.end}}, 3},
			{"symbol", deepHit{File: d.path, Name: d.name}, 3},
			{"qualified symbol", deepHit{File: d.path, Name: qualifiedDeep(d)}, 3},
			{"symbol and lines", deepHit{File: d.path, Name: d.name, Lines: &deepLines{d.start, d.end}}, 3},
			{"path", deepHit{File: d.path}, 1},
			{"doc id", deepHit{ID: d.chunk}, d.chunkEarns},
		}
		if d.trailBlank {
			shapes = append(shapes, struct {
				name string
				hit  deepHit
				want int
			}{"lines and the blank line after", deepHit{File: d.path, Lines: &deepLines{d.start, d.end + 1}}, 3})
		}
		for _, s := range shapes {
			q := fmt.Sprintf("%s by %s", d.name, s.name)
			s.hit.Score = 1
			out = append(out, deepCase{id: strings.NewReplacer(" ", "-", ".", "-").Replace(q), query: q, gold: gold, hits: []deepHit{s.hit}, want: []int{s.want}})
		}
	}
	// Shapes mixed in one ranking: a class and its method by symbol
	// without lines (two hits, two ids), the file, the method again (a
	// repeat earns nothing), the nested helper by lines, a chunk id.
	out = append(out, deepCase{
		id: "mixed", query: "mixed shapes",
		gold: []map[string]any{
			{"kind": "symbol", "id": "Outer.method.helper", "grade": 3},
			{"kind": "symbol", "id": "Outer.method", "grade": 2},
			{"kind": "symbol", "id": "Outer", "grade": 2},
			{"kind": "symbol", "id": "Store.Get", "grade": 3},
			{"kind": "file", "path": "pkg/app.py", "grade": 1},
		},
		hits: []deepHit{
			{File: "pkg/app.py", Name: "Outer", Score: 9},
			{File: "pkg/app.py", Name: "Outer.method", Score: 8},
			{File: "pkg/app.py", Score: 7},
			{File: "pkg/app.py", Name: "Outer.method", Score: 6},
			{File: "pkg/app.py", Lines: &deepLines{10, 12}, Score: 5},
			{ID: "pkg/store.go#Store.Get@L8-L11", Score: 4},
			{File: "pkg/app.py", Lines: &deepLines{1, 30}, Score: 3},
		},
		want: []int{2, 2, 1, 0, 3, 3, 0},
	})
	return out
}

// qualifiedDeep is d's name as a user writes it with its module.
func qualifiedDeep(d deepDef) string {
	if strings.HasSuffix(d.path, ".py") {
		return "pkg.app." + d.name
	}
	return "pkg." + d.name
}

// TestDeepShapesBothPaths runs hits of every shape — path + lines, path +
// symbol, both, a path alone, a doc id — at every nesting level through
// both paths that judge (a go test cell, harness.Run; a campaign: its
// records, per-query-results.jsonl and quality-summary.json) and requires
// the grade every hit must earn (docs/judging.md: a location earns the
// gold of the narrowest definition the parser finds that holds it, and of
// every definition holding that one), the same grade in every file, and
// the same per-task values and means.
func TestDeepShapesBothPaths(t *testing.T) {
	dir := t.TempDir()
	repo, err := filepath.Abs(filepath.Join(deepFixture, "repos", "deep"))
	require.NoError(t, err)
	manifest := filepath.Join(dir, "manifest.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"deep": {"path": `+jsonString(repo)+`, "commit": "fixture-v1"}}`), 0o644))
	cs := deepCases()
	var lines []string
	replay := map[string][]deepHit{}
	want := map[string][]int{}
	for _, c := range cs {
		b, err := json.Marshal(map[string]any{"id": c.id, "repo": "deep", "intent": "symbol_lookup", "language": "python",
			"channel": "chat", "difficulty": "easy", "query": c.query, "relevant": c.gold})
		require.NoError(t, err)
		lines = append(lines, string(b))
		replay[c.query] = c.hits
		want[c.id] = c.want
	}
	casesFile := filepath.Join(dir, "cases.jsonl")
	require.NoError(t, os.WriteFile(casesFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	replayFile := filepath.Join(dir, "replay.json")
	b, err := json.Marshal(replay)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(replayFile, b, 0o644))

	bin := filepath.Join(dir, "fakepeer")
	if out, err := exec.Command("go", "build", "-o", bin, "../systems/external/testdata/fakepeer").CombinedOutput(); err != nil {
		t.Fatalf("building fakepeer: %v\n%s", err, out)
	}
	cfgFile := filepath.Join(dir, "replay-peer.json")
	require.NoError(t, os.WriteFile(cfgFile, []byte(`{"system": "fakepeer", "config": "replay", "transport": "command",
		"command": {"search": [`+jsonString(bin)+`, "replay", `+jsonString(replayFile)+`, "{query}"]},
		"result": {"from": "json", "items": "results", "path": "file", "start_line": "lines.start", "end_line": "lines.end",
			"symbol": "name", "doc_id": "id", "score": "score"}}`), 0o644))
	ecfg, err := external.Load(cfgFile)
	require.NoError(t, err)
	spec := external.Spec(ecfg)

	// The campaign.
	cfg := DefaultConfig()
	cfg.Cases, cfg.Repos = casesFile, manifest
	cfg.CacheDir = t.TempDir()
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	cfg.Specs = append(cfg.Specs[:0], spec)
	out := filepath.Join(dir, "campaign")
	res, err := Run(t.Context(), cfg, out)
	require.NoError(t, err)
	for _, f := range res.Campaign.Failures {
		t.Errorf("campaign failure: %+v", f)
	}
	written, err := resultfmt.ReadRecords(filepath.Join(out, "results"))
	require.NoError(t, err)
	perQuery := readPerQuery(t, filepath.Join(out, "per-query-results.jsonl"))
	var summary struct {
		Systems []struct {
			Name  string `json:"name"`
			Micro map[string]struct {
				Mean float64 `json:"mean"`
			} `json:"micro"`
		} `json:"systems"`
	}
	b, err = os.ReadFile(filepath.Join(out, "quality-summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &summary))
	require.Len(t, summary.Systems, 1)

	// The go test cell.
	ds, err := cases.Load(casesFile, manifest, cases.DefaultConfig())
	require.NoError(t, err)
	p, err := harness.Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	rc := harness.DefaultRunConfig()
	rc.CacheDir = cfg.CacheDir
	rc.Measures = cfg.Report.Measures()
	cell, err := harness.Run(t.Context(), p, spec, rc)
	require.NoError(t, err)
	cellRecs := cell.Records(nil, false)

	byTask := func(recs []resultfmt.Record) map[string]resultfmt.Record {
		m := map[string]resultfmt.Record{}
		for _, r := range recs {
			m[r.Task] = r
		}
		return m
	}
	paths := map[string]map[string]resultfmt.Record{
		"go test cell": byTask(cellRecs), "campaign results/": byTask(written), "campaign regraded": byTask(res.Records),
	}
	names := []string{"go test cell", "campaign results/", "campaign regraded"}
	sums := map[string]float64{}
	for _, c := range cs {
		for _, name := range names {
			r, ok := paths[name][c.id]
			if !ok {
				t.Errorf("%s: no record of case %s", name, c.id)
				continue
			}
			if r.Error != "" {
				t.Errorf("%s: case %s failed: %s", name, c.id, r.Error)
				continue
			}
			var got []int
			for _, h := range r.Hits {
				got = append(got, h.Grade)
			}
			if fmt.Sprint(got) != fmt.Sprint(want[c.id]) {
				t.Errorf("%s: case %s (%q): grades %v, want %v (hits %+v)", name, c.id, c.query, got, want[c.id], r.Hits)
			}
			sums[name] += r.Values["ndcg@10"]
			if name == "go test cell" {
				continue
			}
			ref := paths["go test cell"][c.id]
			for m, v := range ref.Values {
				if r.Values[m] != v {
					t.Errorf("case %s %s: %s %.4f, go test cell %.4f", c.id, m, name, r.Values[m], v)
				}
			}
		}
		// per-query-results.jsonl: the regraded records' grades, one
		// doc id per distinct thing pointed at.
		pq := perQuery[c.id]
		rec := paths["campaign regraded"][c.id]
		if len(pq) != len(rec.Hits) {
			t.Errorf("per-query-results: case %s has %d lines, the records %d hits", c.id, len(pq), len(rec.Hits))
			continue
		}
		for k, l := range pq {
			// A grade, or null for a hit nobody graded (not relevant).
			h := rec.Hits[k]
			g, hg := -1, -1
			if l.Grade != nil {
				g = *l.Grade
			}
			if h.Judged {
				hg = h.Grade
			}
			if g != hg || l.DocID != h.DocID || max(g, 0) != want[c.id][k] {
				t.Errorf("per-query-results: case %s rank %d: doc id %q grade %d, records %q grade %d (want %d)", c.id, l.Rank, l.DocID, g, h.DocID, hg, want[c.id][k])
			}
		}
	}
	mixed := paths["campaign regraded"]["mixed"]
	if len(mixed.Hits) > 1 && mixed.Hits[0].DocID == mixed.Hits[1].DocID {
		t.Errorf("a class and its method by symbol have one doc id %q: pooling and grading would take them for one hit", mixed.Hits[0].DocID)
	}
	n := float64(len(cs))
	mean := sums["go test cell"] / n
	for _, name := range names {
		if got := sums[name] / n; math.Abs(got-mean) > 1e-9 {
			t.Errorf("mean nDCG@10: %s %.4f, go test cell %.4f", name, got, mean)
		}
	}
	if got := summary.Systems[0].Micro["ndcg@10"].Mean; math.Abs(got-mean) > 5e-5 {
		t.Errorf("quality-summary.json: nDCG@10 %.4f, go test cell %.4f", got, mean)
	}
	t.Logf("%d cases, mean nDCG@10 %.4f on every path", len(cs), mean)
}

type perQueryLine struct {
	Case  string `json:"case"`
	Rank  int    `json:"rank"`
	DocID string `json:"doc_id"`
	Grade *int   `json:"grade"`
}

func readPerQuery(t *testing.T, file string) map[string][]perQueryLine {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	out := map[string][]perQueryLine{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var l perQueryLine
		require.NoError(t, json.Unmarshal([]byte(line), &l))
		out[l.Case] = append(out[l.Case], l)
	}
	for _, ls := range out {
		sort.Slice(ls, func(i, j int) bool { return ls[i].Rank < ls[j].Rank })
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
