package campaign

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/report"
)

// TestOneJudge checks that the same ranked hits give the same numbers on
// both paths that judge: a go test cell (harness.Run on the case file, as
// go test ./bench -run TestCases does) and a campaign re-scored from its
// records without people's grades (retrievalbench campaign + score).
func TestOneJudge(t *testing.T) {
	spec := bm25Spec(t)
	cfg := DefaultConfig()
	cfg.Cases = filepath.Join(fixture, "cases.jsonl")
	cfg.Repos = filepath.Join(fixture, "manifest.json")
	cfg.CacheDir = t.TempDir()
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	cfg.Specs = append(cfg.Specs[:0], spec)
	res, err := Run(t.Context(), cfg, t.TempDir())
	require.NoError(t, err)
	ms := cfg.Report.Measures()
	require.NoError(t, report.Rescore(res.Records, mustJudge(t, res.Run, res.Records), ms))

	ccfg := cases.DefaultConfig()
	ds, err := cases.Load(cfg.Cases, cfg.Repos, ccfg)
	require.NoError(t, err)
	p, err := harness.Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	rc := harness.DefaultRunConfig()
	rc.CacheDir = cfg.CacheDir
	rc.Measures = nil
	for _, m := range ms {
		rc.Measures = append(rc.Measures, m.String())
	}
	cell, err := harness.Run(t.Context(), p, spec, rc)
	require.NoError(t, err)

	byTask := map[string]report.Record{}
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
	t.Logf("%d task × measure values equal on both paths", compared)
}

func mustJudge(t *testing.T, run *report.Run, recs []report.Record) report.Qrels {
	t.Helper()
	q, err := report.Judge(run, recs, nil)
	require.NoError(t, err)
	return q
}
