package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/internal/mlflowtest"
	"github.com/retrievalbench/retrievalbench/mlflow"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// writeResultsDir writes what `go test ./bench -results DIR` leaves for two
// systems on one dataset: bm25/code hits tasks 0–7 of 10 at rank 1,
// dense/m tasks 0–3; only bm25/code has a cell file.
func writeResultsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, s := range []struct {
		system, config string
		hits           int
	}{{"bm25", "code", 8}, {"dense", "m", 4}} {
		var recs []resultfmt.Record
		for i := range 10 {
			v := 0.0
			if i < s.hits {
				v = 1
			}
			recs = append(recs, resultfmt.Record{Dataset: "toy", Split: "small", System: s.system, Config: s.config,
				Task: fmt.Sprintf("t%02d", i), Query: "q", Values: map[string]float64{"ndcg@10": v, "hit@1": v}, LatencyMS: float64(1 + i)})
		}
		require.NoError(t, resultfmt.WriteRecords(filepath.Join(dir, resultfmt.RecordsFileName("toy", "small", s.system, s.config)), recs))
	}
	require.NoError(t, resultfmt.WriteCell(filepath.Join(dir, resultfmt.CellFileName("toy", "small", "bm25", "code")),
		resultfmt.Cell{Dataset: "toy", Split: "small", System: "bm25", Config: "code", ConfigHash: "cfg123", DataHash: "data456",
			IndexSeconds: 2.5, IndexedDocs: 42, PeakRSSMB: 99, Versions: map[string]string{"sqlite": "3.50"}, Commit: "c0ffee"}))
	return dir
}

func TestLeaderboardCommand(t *testing.T) {
	results := writeResultsDir(t)
	var outs []map[string][]byte
	for range 2 {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		require.NoError(t, run([]string{"leaderboard", "-results", results, "-out", out, "-mlflow", ""}, &stdout, &stderr), stderr.String())
		if want := "toy.small: 2 systems, 10 cases, best bm25/code\n"; !strings.HasPrefix(stdout.String(), want) {
			t.Errorf("stdout = %q, want it to start with %q", stdout.String(), want)
		}
		files := map[string][]byte{}
		for _, f := range []string{"index.md", "index.html", "leaderboard.json", "toy.small/index.md", "toy.small/plots/pareto.svg", "toy.small/plots/timing.png", "toy.small/plots/score-ndcg-10.svg"} {
			b, err := os.ReadFile(filepath.Join(out, f))
			if err != nil || len(b) == 0 {
				t.Errorf("%s: %v (%d bytes)", f, err, len(b))
			}
			files[f] = b
		}
		outs = append(outs, files)
	}
	for f, b := range outs[0] {
		if !bytes.Equal(b, outs[1][f]) {
			t.Errorf("%s differs between two runs on the same results", f)
		}
	}
	page := string(outs[0]["toy.small/index.md"])
	// bm25/code: 8 of 10 → 0.8000; dense/m 0.4000; Δ −0.4; cell: 2.50 s, 99.0 MiB.
	for _, want := range []string{"| 1 | bm25/code | ok | 0.8000 [", "| 2 | dense/m | ok | 0.4000 [", "-0.4000 [", "| 2.50 | 99.0 |", "commit c0ffee"} {
		if !strings.Contains(page+string(outs[0]["index.md"]), want) {
			t.Errorf("pages lack %q:\n%s", want, page)
		}
	}
}

func TestLeaderboardUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{"leaderboard", "-h"}, &stdout, &stderr); err != nil {
		t.Errorf("leaderboard -h: %v, want exit 0", err)
	}
	if err := run([]string{"leaderboard"}, &stdout, &stderr); err == nil || exitCode(err) != 2 {
		t.Errorf("leaderboard without -results: %v, want exit 2", err)
	}
	empty := t.TempDir()
	if err := run([]string{"leaderboard", "-results", empty}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "no *.jsonl") {
		t.Errorf("leaderboard of an empty dir: %v, want an error saying it has no results", err)
	}
}

// TestLeaderboardMLflow logs a results dir to a real MLflow server and
// reads every run back.
func TestLeaderboardMLflow(t *testing.T) {
	uri := mlflowtest.Start(t)
	results := writeResultsDir(t)
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"leaderboard", "-results", results, "-out", t.TempDir(), "-mlflow", uri, "-mlflow-experiment", "e2e"}, &stdout, &stderr), stderr.String())
	if !strings.Contains(stdout.String(), "mlflow: 2 runs logged") {
		t.Errorf("stdout lacks the MLflow line:\n%s", stdout.String())
	}
	c, err := mlflow.New(mlflow.Config{TrackingURI: uri})
	require.NoError(t, err)
	ctx := t.Context()
	exp, err := c.ExperimentID(ctx, "e2e")
	require.NoError(t, err)
	runs, err := c.SearchRuns(ctx, exp)
	require.NoError(t, err)
	if len(runs) != 2 {
		t.Fatalf("%d runs in the experiment, want one per cell (2)", len(runs))
	}
	byModel := map[string]mlflow.TrackingRun{}
	for _, r := range runs {
		p := kv(r.Data.Params)
		byModel[p["system"]+"/"+p["config"]] = r
	}
	bm := byModel["bm25/code"]
	params, tags := kv(bm.Data.Params), kv(bm.Data.Tags)
	metrics := map[string]float64{}
	for _, m := range bm.Data.Metrics {
		metrics[m.Key] = m.Value
	}
	for k, want := range map[string]string{"dataset": "toy", "split": "small", "config_hash": "cfg123", "data_hash": "data456", "version.sqlite": "3.50", "tasks": "10"} {
		if params[k] != want {
			t.Errorf("bm25/code param %s = %q, want %q", k, params[k], want)
		}
	}
	if tags["commit"] != "c0ffee" || bm.Info.Status != "FINISHED" {
		t.Errorf("bm25/code: tag commit %q, status %s; want c0ffee, FINISHED", tags["commit"], bm.Info.Status)
	}
	// Latencies 1..10 ms: nearest-rank p50 = 5, p95 = 10.
	for k, want := range map[string]float64{"ndcg_at_10": 0.8, "hit_at_1": 0.8, "index_seconds": 2.5, "peak_rss_mb": 99, "latency_p50_ms": 5, "latency_p95_ms": 10, "rank": 1} {
		if v, ok := metrics[k]; !ok || v != want {
			t.Errorf("bm25/code metric %s = %v (present %v), want %v", k, v, ok, want)
		}
	}
	dense := byModel["dense/m"]
	dm := map[string]float64{}
	for _, m := range dense.Data.Metrics {
		dm[m.Key] = m.Value
	}
	if dm["ndcg_at_10"] != 0.4 || dm["vs_best.diff"] != -0.4 {
		t.Errorf("dense/m ndcg_at_10 %v, vs_best.diff %v; want 0.4, -0.4", dm["ndcg_at_10"], dm["vs_best.diff"])
	}
	for model, files := range map[string][]string{
		"bm25/code": {resultfmt.RecordsFileName("toy", "small", "bm25", "code"), resultfmt.CellFileName("toy", "small", "bm25", "code")},
		"dense/m":   {resultfmt.RecordsFileName("toy", "small", "dense", "m")},
	} {
		for _, f := range files {
			got, err := c.DownloadArtifact(ctx, byModel[model].Info, "results/"+f)
			if err != nil {
				t.Errorf("%s artefact %s: %v", model, f, err)
				continue
			}
			want, _ := os.ReadFile(filepath.Join(results, f))
			if !bytes.Equal(got, want) {
				t.Errorf("%s artefact %s: %d bytes differ from the %d of the results file", model, f, len(got), len(want))
			}
		}
	}
}

func kv(items []mlflow.Tag) map[string]string {
	m := map[string]string{}
	for _, it := range items {
		m[it.Key] = it.Value
	}
	return m
}

// TestLeaderboardFailedCell: a cell whose every task failed makes the
// command write every page, then exit 1 naming the cell.
func TestLeaderboardFailedCell(t *testing.T) {
	results := writeResultsDir(t)
	var recs []resultfmt.Record
	for i := range 10 {
		recs = append(recs, resultfmt.Record{Dataset: "toy", Split: "small", System: "dense", Config: "dead",
			Task: fmt.Sprintf("t%02d", i), Query: "q", Error: "model file missing"})
	}
	require.NoError(t, resultfmt.WriteRecords(filepath.Join(results, resultfmt.RecordsFileName("toy", "small", "dense", "dead")), recs))
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"leaderboard", "-results", results, "-out", out, "-mlflow", ""}, &stdout, &stderr)
	require.Error(t, err)
	require.Equal(t, 1, exitCode(err))
	require.ErrorContains(t, err, "1 cells failed every task: toy.small: dense/dead")
	page, rerr := os.ReadFile(filepath.Join(out, "toy.small", "index.md"))
	require.NoError(t, rerr, "pages are written before the failure exit")
	require.Contains(t, string(page), "| — | dense/dead | failed (10 failed) |")
	require.Contains(t, stdout.String(), "toy.small: 3 systems, 10 cases, best bm25/code")
}

// TestLeaderboardLostPart: `leaderboard -results p1,MISSING,p3` exits
// non-zero naming the lost part and writes no pages, instead of a
// leaderboard with fewer rows (issue 39 item 1).
func TestLeaderboardLostPart(t *testing.T) {
	results := writeResultsDir(t)
	other := t.TempDir() // the second part: one more system
	recs := []resultfmt.Record{{Dataset: "toy", Split: "small", System: "bm25", Config: "porter", Task: "t00", Values: map[string]float64{"ndcg@10": 1}}}
	require.NoError(t, resultfmt.WriteRecords(filepath.Join(other, resultfmt.RecordsFileName("toy", "small", "bm25", "porter")), recs))
	missing := filepath.Join(t.TempDir(), "records-2")
	out := filepath.Join(t.TempDir(), "lb")
	var stdout, stderr bytes.Buffer
	err := run([]string{"leaderboard", "-results", results + "," + missing + "," + other, "-out", out, "-mlflow", ""}, &stdout, &stderr)
	require.Error(t, err)
	require.NotEqual(t, 0, exitCode(err))
	require.ErrorContains(t, err, missing+": no such results directory (part 2 of 3")
	if _, serr := os.Stat(out); serr == nil {
		t.Errorf("%s was written from an incomplete run", out)
	}
}
