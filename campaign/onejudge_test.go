package campaign

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/resultfmt"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external"
)

// TestOneJudge checks that the same ranked hits give the same numbers on
// both paths that judge: a go test cell (harness.Run on the case file, as
// go test ./bench -run TestCases does) and a campaign re-scored from its
// records without people's grades (retrievalbench campaign + score).
func TestOneJudge(t *testing.T) {
	t.Run("bm25", func(t *testing.T) { oneJudge(t, bm25Spec(t)) })
	// An external system's hits are locations (path, lines, a symbol);
	// the campaign judges them later from the gold spans it recorded.
	t.Run("external", func(t *testing.T) { oneJudge(t, fakepeerSpec(t)) })
}

// fakepeerSpec builds systems/external's test peer (a real command-line
// program) and configures it as an external system.
func fakepeerSpec(t *testing.T) systems.Spec {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fakepeer")
	if out, err := exec.Command("go", "build", "-o", bin, "../systems/external/testdata/fakepeer").CombinedOutput(); err != nil {
		t.Fatalf("building fakepeer: %v\n%s", err, out)
	}
	cfgFile := filepath.Join(t.TempDir(), "fakepeer.json")
	cfgJSON := `{"system": "fakepeer", "config": "grep", "transport": "command",
		"command": {"search": ["` + bin + `", "search", "-k", "{k}", "{corpus}", "{query}"]},
		"result": {"from": "json", "items": "results", "path": "file", "start_line": "lines.start", "end_line": "lines.end", "symbol": "name", "score": "score"}}`
	require.NoError(t, os.WriteFile(cfgFile, []byte(cfgJSON), 0o644))
	cfg, err := external.Load(cfgFile)
	require.NoError(t, err)
	return external.Spec(cfg)
}

func oneJudge(t *testing.T, spec systems.Spec) {
	cfg := DefaultConfig()
	cfg.Cases = filepath.Join(fixture, "cases.jsonl")
	cfg.Repos = filepath.Join(fixture, "manifest.json")
	cfg.CacheDir = t.TempDir()
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	cfg.Specs = append(cfg.Specs[:0], spec)
	res, err := Run(t.Context(), cfg, t.TempDir())
	require.NoError(t, err)
	for _, f := range res.Campaign.Failures {
		t.Errorf("campaign failure: %+v", f)
	}
	ms := cfg.Report.Measures()
	require.NoError(t, report.Rescore(res.Records, mustJudge(t, res.Campaign, res.Records), ms))

	ccfg := cases.DefaultConfig()
	ds, err := cases.Load(cfg.Cases, cfg.Repos, ccfg)
	require.NoError(t, err)
	p, err := harness.Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	rc := harness.DefaultRunConfig()
	rc.CacheDir = cfg.CacheDir
	rc.Measures = ms
	cell, err := harness.Run(t.Context(), p, spec, rc)
	require.NoError(t, err)

	byTask := map[string]resultfmt.Record{}
	for _, r := range res.Records {
		byTask[r.Task] = r
	}
	compared := 0
	for _, tr := range cell.Tasks {
		r, ok := byTask[tr.ID]
		if !ok {
			t.Errorf("task %s: in the go test cell, not in the campaign", tr.ID)
			continue
		}
		for i, m := range cell.Measures {
			if got, want := r.Values[m.String()], tr.Values[i]; got != want {
				t.Errorf("task %s %s: campaign %.4f, go test %.4f", tr.ID, m, got, want)
			}
			compared++
		}
	}
	require.NotZero(t, compared)
	relevant := 0
	for _, tr := range cell.Tasks {
		if tr.FirstRelevant > 0 {
			relevant++
		}
	}
	require.NotZero(t, relevant, "no task found anything relevant: the comparison would be vacuous")
	t.Logf("%d task × measure values equal on both paths (%d of %d tasks found a relevant unit)", compared, relevant, len(cell.Tasks))
}

func mustJudge(t *testing.T, run *campaignfmt.Campaign, recs []resultfmt.Record) metrics.Qrels {
	t.Helper()
	q, err := report.Judge(run, recs, nil)
	require.NoError(t, err)
	return q
}
