package benchtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/systems"
)

func TestOrphans(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"ds/all/sys/a.json",       // read by a cell
		"ds/all/sys/gone.json",    // a config the suite no longer has
		"ds/all/sys/b.json",       // a config the suite has, its dataset ran, no cell read it
		"other/all/sys/b.json",    // a dataset this run did not reach: not judged
		"ds/small/sys/b.json",     // another split (size) of a dataset that ran: not judged
		"ds/all/sys/extra/x.json", // not at dataset/split/system/config.json
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

func TestFixturesDirHasTheFixtures(t *testing.T) {
	for _, f := range []string{"repoqa/repoqa-fixture.json", "trec/qrels", "cases/cases.jsonl", "beir"} {
		if _, err := os.Stat(filepath.Join(FixturesDir(), f)); err != nil {
			t.Errorf("FixturesDir() = %s: %v", FixturesDir(), err)
		}
	}
}

func TestGroupLines(t *testing.T) {
	res := &harness.Result{Measures: []metrics.Measure{{Name: "hit", K: 1}}}
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
