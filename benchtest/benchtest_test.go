package benchtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/matrix"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/systems"
)

func TestOrphans(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"ds/all/sys/a.json",        // read by a cell
		"ds/all/sys/gone.json",     // a config the suite no longer has
		"ds/all/sys/b.json",        // a config the suite has, its dataset ran, no cell read it
		"other/all/sys/b.json",     // a dataset this run did not reach: not judged
		"ds/small/sys/b.json",      // another split (size) of a dataset that ran: not judged
		"ds/all/sys/extra/x.json",  // not at dataset/split/system/config.json
		"ds/all/sys/.a.json.tmp42", // a golden write killed before its rename
	} {
		p := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("{}"), 0o644))
	}
	markRead(filepath.Join(dir, "ds/all/sys/a.json"))
	specs := []systems.Spec{{System: "sys", Config: "a"}, {System: "sys", Config: "b"}}
	got, err := Orphans(dir, specs)
	require.NoError(t, err)
	for i := range got {
		got[i] = strings.TrimPrefix(got[i], dir+string(filepath.Separator))
	}
	want := []string{
		"ds/all/sys/.a.json.tmp42: left by an interrupted golden write (the file beside it is the old one, whole): delete it, or run -update again",
		"ds/all/sys/b.json: no cell of ds/all read it",
		"ds/all/sys/extra/x.json: not at <dataset>/<split>/<system>/<config>.json",
		"ds/all/sys/gone.json: no system config sys/gone in the suite",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Orphans (-want +got):\n%s", diff)
	}
}

func TestRunPattern(t *testing.T) {
	got := RunPattern("TestRepoQA/dense/bge-small-q/doc.string")
	want := `^TestRepoQA$/^dense$/^bge-small-q$/^doc\.string$`
	if got != want {
		t.Errorf("RunPattern = %q, want %q", got, want)
	}
}

func TestGroupLines(t *testing.T) {
	res := &harness.Result{Measures: []metrics.Measure{metrics.Hit.At(1)}}
	for _, tt := range []struct {
		qa string
		v  float64
	}{{"what", 1}, {"what", 0}, {"how", 1}} {
		res.Tasks = append(res.Tasks, harness.TaskResult{Meta: datasets.Meta{QAType: tt.qa, Repo: "one"}, Values: []float64{tt.v}})
	}
	got := groupLines(res)
	if len(got) != 1 {
		t.Fatalf("groupLines = %q, want one line: qa_type has two values, repo one", got)
	}
	// how: 1.0 (n=1); what: 0.5 (n=2); macro (1 + 0.5) / 2 = 0.75, not the micro 0.667.
	for _, want := range []string{"by qa_type, hit@1:", "how=1.0000", "what=0.5000", "(n=2)", "macro 0.7500"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("groupLines = %q, lacks %q", got[0], want)
		}
	}
}

func TestByDesign(t *testing.T) {
	heavy := systems.Spec{System: "peer", Config: "slow", Bench: systems.Schedule{Heavy: true}}
	fixturesOnly := systems.Spec{System: "dense", Config: "big", Bench: systems.Schedule{Heavy: true, FixturesOnly: true}}
	light := systems.Spec{System: "bm25", Config: "plain"}
	repoqa := catalogue.Family{Name: "repoqa", HeavyAtSmall: true}
	sweqa := catalogue.Family{Name: "sweqa"}
	data := catalogue.Dataset{Name: "sweqa"}
	fixture := catalogue.Dataset{Name: "fixture", Hermetic: true}
	const again = "go test ./bench -run 'X'"
	for _, tt := range []struct {
		name   string
		spec   systems.Spec
		flags  Flags
		family catalogue.Family
		d      catalogue.Dataset
		want   []string // substrings of the reason; nil: the cell runs
		kind   matrix.SkipKind
		reason string
	}{
		{"heavy-small", heavy, Flags{Size: SizeSmall}, sweqa, data, []string{"peer/slow is a heavy config", "unless asked", "Run this cell with: " + again + " -heavy"}, matrix.SkipHeavy, "a heavy config skips a data-pack cell at the CI size, naming the command that runs it"},
		{"heavy-small-asked", heavy, Flags{Size: SizeSmall, Heavy: true}, sweqa, data, nil, "", "-heavy runs it at the CI size"},
		{"heavy-full", heavy, Flags{Size: SizeFull}, sweqa, data, nil, "", "full size runs everything"},
		{"heavy-fixture", heavy, Flags{Size: SizeSmall}, sweqa, fixture, nil, "", "the hermetic fixtures always run"},
		{"heavy-repoqa", heavy, Flags{Size: SizeSmall}, repoqa, data, nil, "", "a family that allows heavy configs at small runs them"},
		{"fixtures-only", fixturesOnly, Flags{Size: SizeSmall}, repoqa, data, []string{"dense/big is slow enough to run on the fixtures only", "Run this cell with: " + again + " -heavy"}, matrix.SkipFixturesOnly, "a fixtures-only config skips even where heavy configs run, naming the command"},
		{"fixtures-only-asked", fixturesOnly, Flags{Size: SizeSmall, Heavy: true}, repoqa, data, nil, "", "-heavy runs every cell skipped for its cost"},
		{"fixtures-only-fixture", fixturesOnly, Flags{Size: SizeSmall}, repoqa, fixture, nil, "", "fixtures-only configs run on fixtures"},
		{"light", light, Flags{Size: SizeSmall}, sweqa, data, nil, "", "a light config runs everywhere"},
		{"light-size-fixture", light, Flags{Size: SizeFixture}, sweqa, data, []string{sizeFixtureSkip}, matrix.SkipSize, "a data-pack dataset is not of the fixture size"},
		{"heavy-size-fixture", heavy, Flags{Size: SizeFixture}, sweqa, data, []string{"peer/slow is a heavy config"}, matrix.SkipHeavy, "a heavy config's reason comes first (Benchmark prints it)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := byDesign(tt.spec, &tt.flags, tt.family, tt.d, again)
			if got.Kind != tt.kind {
				t.Errorf("byDesign kind = %q, want %q (%s)", got.Kind, tt.kind, tt.reason)
			}
			if tt.want == nil {
				if got != (matrix.Skip{}) {
					t.Errorf("byDesign = %q, want none (%s)", got, tt.reason)
				}
				return
			}
			for _, w := range tt.want {
				if !strings.Contains(got.Why, w) {
					t.Errorf("byDesign = %q, lacks %q (%s)", got, w, tt.reason)
				}
			}
		})
	}
}

func TestOverBudget(t *testing.T) {
	slow := systems.Spec{System: "dense", Config: "big", Bench: systems.Schedule{MaxDocs: 3000, MaxDocsReason: "3 docs/s"}}
	const again = "go test ./bench -run 'X' -size=full"
	for _, tt := range []struct {
		name  string
		spec  systems.Spec
		flags Flags
		docs  int
		want  []string // substrings of the reason; nil: the cell runs
	}{
		{"over", slow, Flags{Size: SizeFull}, 3001, []string{"dense/big indexes at most 3000 docs", "(3 docs/s)", "this dataset has 3001", "Run this cell with: " + again + " -heavy"}},
		{"at the limit", slow, Flags{Size: SizeFull}, 3000, nil},
		{"asked", slow, Flags{Size: SizeFull, Heavy: true}, 1 << 20, nil},
		{"no budget", systems.Spec{System: "bm25", Config: "plain"}, Flags{Size: SizeFull}, 1 << 20, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := overBudget(tt.spec, &tt.flags, tt.docs, again)
			if tt.want == nil {
				if got != "" {
					t.Errorf("overBudget = %q, want \"\"", got)
				}
				return
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("overBudget = %q, lacks %q", got, w)
				}
			}
		})
	}
}

func TestHintHeavy(t *testing.T) {
	s := Suite{Package: "./bench"}
	got := s.command("TestSWEQA/pydocs-mcp/bge-small-q/sweqa", &Flags{Size: SizeSmall, Heavy: true})
	if want := `go test ./bench -run '^TestSWEQA$/^pydocs-mcp$/^bge-small-q$/^sweqa$' -heavy`; got != want {
		t.Errorf("command = %q, want %q", got, want)
	}
}

// TestPathless: a collection judged by doc id (a doc without a path) is
// what a system with Spec.NoDocIDs skips by design.
func TestPathless(t *testing.T) {
	code := &harness.Prepared{Corpora: map[string]*corpus.Corpus{"r": {Docs: []corpus.Doc{{ID: "a.py#f", Path: "a.py"}}}}}
	docs := &harness.Prepared{Corpora: map[string]*corpus.Corpus{"c": {Docs: []corpus.Doc{{ID: "d1", Title: "t"}}}}}
	if pathless(code) || !pathless(docs) {
		t.Errorf("pathless(code) = %v, pathless(docs) = %v; want false, true", pathless(code), pathless(docs))
	}
}
