package leaderboard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/mlflow"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// LogMLflow logs one MLflow run per cell of b (dataset × split × system ×
// config) into the experiment called experiment: params (dataset, split,
// system, config, config and data hashes, versions, tasks), metrics (every
// measure's mean and CI bounds, latency p50/p95, index time, peak RSS, the
// paired test against the best), tags (commit), and the cell's per-task
// JSONL (and .cell.json, when present) from resultsDir as artefacts under
// results/. It returns the run ids in board order. Every call creates new
// runs.
func LogMLflow(ctx context.Context, c *mlflow.Client, experiment, resultsDir string, b *Board) ([]string, error) {
	exp, err := c.ExperimentID(ctx, experiment)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, d := range b.Datasets {
		for _, r := range d.Rows {
			id, err := logCell(ctx, c, exp, resultsDir, b, d, r)
			if err != nil {
				return ids, fmt.Errorf("%s %s: %w", d.Key, r.Model, err)
			}
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func logCell(ctx context.Context, c *mlflow.Client, exp, resultsDir string, b *Board, d *Dataset, r Row) (string, error) {
	system, config, _ := strings.Cut(r.Model, "/")
	tags := []mlflow.Tag{{Key: "retrievalbench.cell", Value: d.Key + "/" + r.Model}, {Key: "status", Value: r.Status}}
	if b.Commit != "" {
		tags = append(tags, mlflow.Tag{Key: "commit", Value: b.Commit}, mlflow.Tag{Key: "mlflow.source.git.commit", Value: b.Commit})
	}
	run, err := c.CreateRun(ctx, exp, d.Key+" "+r.Model, time.Now(), tags)
	if err != nil {
		return "", err
	}
	params := []mlflow.Param{
		{Key: "dataset", Value: d.Dataset}, {Key: "split", Value: d.Split}, {Key: "system", Value: system}, {Key: "config", Value: config},
		{Key: "tasks", Value: strconv.Itoa(d.Cases)}, {Key: "primary", Value: d.Primary},
		{Key: "resamples", Value: strconv.Itoa(b.Resamples)}, {Key: "seed", Value: strconv.FormatUint(b.Seed, 10)},
	}
	now := time.Now().UnixMilli()
	metric := func(k string, v float64) mlflow.Metric { return mlflow.Metric{Key: k, Value: v, Timestamp: now} }
	var metrics []mlflow.Metric
	for _, m := range d.Measures {
		s, ok := r.Scores[m]
		if !ok {
			continue
		}
		k := mlflow.Key(m)
		metrics = append(metrics, metric(k, float64(s.Mean)), metric(k+".ci_low", float64(s.Low)), metric(k+".ci_high", float64(s.High)))
	}
	if r.Rank > 0 { // a failed row has no latency and no rank
		metrics = append(metrics, metric("latency_p50_ms", float64(r.LatencyP50MS)), metric("latency_p95_ms", float64(r.LatencyP95MS)),
			metric("rank", float64(r.Rank)))
	}
	metrics = append(metrics, metric("failed_tasks", float64(r.Failed)))
	if v := r.VsBest; v != nil {
		metrics = append(metrics, metric("vs_best.diff", float64(v.Diff)), metric("vs_best.ci_low", float64(v.Low)),
			metric("vs_best.ci_high", float64(v.High)), metric("vs_best.p_permutation", float64(v.PPermutation)),
			metric("vs_best.p_bootstrap", float64(v.PBootstrap)), metric("vs_best.p_holm", float64(v.PHolm)))
	}
	artefacts := []string{resultfmt.RecordsFileName(d.Dataset, d.Split, system, config)}
	if cell := r.Cell; cell != nil {
		params = append(params, mlflow.Param{Key: "config_hash", Value: cell.ConfigHash}, mlflow.Param{Key: "data_hash", Value: cell.DataHash},
			mlflow.Param{Key: "indexed_docs", Value: strconv.Itoa(cell.IndexedDocs)})
		keys := make([]string, 0, len(cell.Versions))
		for k := range cell.Versions {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			params = append(params, mlflow.Param{Key: "version." + mlflow.Key(k), Value: cell.Versions[k]})
		}
		metrics = append(metrics, metric("index_seconds", cell.IndexSeconds))
		if cell.PeakRSSMB > 0 {
			metrics = append(metrics, metric("peak_rss_mb", cell.PeakRSSMB))
		}
		artefacts = append(artefacts, resultfmt.CellFileName(d.Dataset, d.Split, system, config))
	}
	if err := c.LogBatch(ctx, run.RunID, params, metrics, nil); err != nil {
		return run.RunID, err
	}
	for _, name := range artefacts {
		data, err := os.ReadFile(filepath.Join(resultsDir, name))
		if err != nil {
			return run.RunID, fmt.Errorf("artefact: %w", err)
		}
		if err := c.UploadArtifact(ctx, run, "results/"+name, data); err != nil {
			return run.RunID, err
		}
	}
	status := "FINISHED"
	if r.Status == campaignfmt.StatusFailed {
		status = "FAILED"
	}
	return run.RunID, c.EndRun(ctx, run.RunID, status, time.Now())
}
