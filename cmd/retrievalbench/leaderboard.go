package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/retrievalbench/retrievalbench/leaderboard"
	"github.com/retrievalbench/retrievalbench/mlflow"
	"github.com/retrievalbench/retrievalbench/report/plots"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// runLeaderboard builds the leaderboard of a results directory (what `go
// test ./bench -results DIR` writes) and, with -mlflow, logs every cell to
// an MLflow tracking server.
func runLeaderboard(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("leaderboard", "usage: retrievalbench leaderboard -results DIR [-out DIR] [flags]\n\n"+
		"Writes index.md, index.html (self-contained), leaderboard.json and, per dataset and\n"+
		"split, DATASET.SPLIT/index.md with plots/*.svg|png: every system/config with each\n"+
		"measure's mean and 95% bootstrap CI, the paired test against the best system, query\n"+
		"latency p50/p95, index time and peak RSS (from .cell.json files, when present).\n\nflags:\n", stderr)
	def := leaderboard.DefaultConfig()
	results := fs.String("results", "", "`dir` of per-task JSONL results (and .cell.json files); A,B,… merges the parts of a sharded run (-shard)")
	out := fs.String("out", "", "output `dir` (default: RESULTS/leaderboard)")
	primary := fs.String("primary", def.Primary, "`measure` that ranks the systems and is paired-tested against the best")
	commit := fs.String("commit", "", "commit the results are of, shown on the pages and tagged in MLflow (default: the cells', else this checkout's HEAD)")
	timestamp := fs.String("timestamp", "", "`RFC3339` time to show as generated (default: none, so the same results give byte-identical pages)")
	tracking := fs.String("mlflow", os.Getenv(mlflow.EnvTrackingURI), "MLflow tracking server `URI` to log one run per cell to (default $"+mlflow.EnvTrackingURI+"; empty: no MLflow)")
	experiment := fs.String("mlflow-experiment", "retrievalbench", "MLflow experiment `name` (created when missing)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *results == "" || fs.NArg() != 0 {
		return badUsage(fs, "leaderboard: need -results and no arguments")
	}
	dirs := strings.Split(*results, ",")
	if *out == "" && len(dirs) > 1 {
		return usagef("leaderboard: -out is needed with several -results directories")
	}
	if *tracking != "" && len(dirs) > 1 {
		return usagef("leaderboard: -mlflow logs one results directory; copy the parts into one first")
	}
	if *out == "" {
		*out = filepath.Join(*results, "leaderboard")
	}
	cfg := def
	cfg.Primary = *primary
	if *timestamp != "" {
		rf := reportFlags{timestamp: *timestamp}
		gen, err := rf.generated()
		if err != nil {
			return usagef("leaderboard: %v", err)
		}
		cfg.Generated = gen
	}
	recs, err := resultfmt.ReadScoresOf(dirs)
	if err != nil {
		return err
	}
	cells, err := resultfmt.ReadCellsOf(dirs)
	if err != nil {
		return err
	}
	cfg.Commit = *commit
	if cfg.Commit == "" {
		cfg.Commit = resultfmt.CommonCommit(cells)
	}
	if cfg.Commit == "" {
		cfg.Commit = toolMeta("").Commit
	}
	b, err := leaderboard.Build(recs, cells, cfg)
	if err != nil {
		return err
	}
	if err := leaderboard.Write(*out, b, plots.Write); err != nil {
		return err
	}
	for _, d := range b.Datasets {
		best := d.Best
		if best == "" {
			best = "none (every system failed)"
		}
		fmt.Fprintf(stdout, "%s: %d systems, %d cases, best %s\n", d.Key, len(d.Rows), d.Cases, best)
	}
	fmt.Fprintf(stdout, "leaderboard: %s\n", filepath.Join(*out, "index.html"))
	if *tracking == "" {
		return failedRows(b, *out)
	}
	c, err := mlflow.New(mlflow.Config{TrackingURI: *tracking})
	if err != nil {
		return err
	}
	runs, err := leaderboard.LogMLflow(context.Background(), c, *experiment, *results, b)
	if err != nil {
		return fmt.Errorf("mlflow: %w", err)
	}
	fmt.Fprintf(stdout, "mlflow: %d runs logged to experiment %q at %s\n", len(runs), *experiment, mlflow.Redact(*tracking))
	return failedRows(b, *out)
}

// failedRows is the error of a leaderboard whose pages are written but
// some of whose cells failed every task (as make results exits non-zero
// for the bench), naming them; nil when every cell ran.
func failedRows(b *leaderboard.Board, out string) error {
	failed := b.Failed()
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("leaderboard: %d cells failed every task: %s (pages written to %s)", len(failed), strings.Join(failed, "; "), out)
}
