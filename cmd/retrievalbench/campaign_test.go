package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
	"github.com/retrievalbench/retrievalbench/report"
)

// TestCampaignScoreReport runs the grading loop on the hermetic case
// fixture with BM25 alone: campaign → grade one pooled result → score
// (twice, byte-identical) → report over the campaign's results.
func TestCampaignScoreReport(t *testing.T) {
	fx := filepath.Join("..", "..", "fixtures", "cases")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
		"-models", "none", "-pool", "3", "-cache", t.TempDir(), "-out", out, "-timestamp", "2026-01-01T00:00:00Z"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	require.Contains(t, stdout.String(), "10 cases, 1 systems, 0 failures")
	require.Contains(t, stdout.String(), "Pareto set (quality, latency, memory, cold index cost; gold only): bm25/code-weighted\n", "the one verdict across all systems is printed")

	// Grade the first ungraded pooled result 3 with labels.jsonl.
	b, err := os.ReadFile(filepath.Join(out, "pooled-results.jsonl"))
	require.NoError(t, err)
	var pick report.PoolEntry
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e report.PoolEntry
		require.NoError(t, json.Unmarshal([]byte(l), &e))
		if e.Grade == nil {
			pick = e
			break
		}
	}
	require.NotEmpty(t, pick.DocID, "every pooled result already graded by the gold")
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	line, _ := json.Marshal(map[string]any{"case_id": pick.Task, "result_id": pick.DocID, "grade": 3})
	require.NoError(t, os.WriteFile(labels, append(line, '\n'), 0o644))

	var mds [][]byte
	for i := 0; i < 2; i++ {
		dir := t.TempDir()
		stdout.Reset()
		err := run([]string{"score", "-run", out, "-labels", labels, "-out", dir, "-timestamp", "2026-01-02T00:00:00Z"}, &stdout, &stderr)
		require.NoError(t, err, stderr.String())
		require.Contains(t, stdout.String(), "10 cases, 1 judgments")
		md, err := os.ReadFile(filepath.Join(dir, "quality-summary.md"))
		require.NoError(t, err)
		mds = append(mds, md)
		q, err := os.ReadFile(filepath.Join(dir, "per-query-results.jsonl"))
		require.NoError(t, err)
		if !bytes.Contains(q, []byte(`"doc_id":"`+pick.DocID+`"`)) {
			t.Errorf("per-query results lack the graded %s", pick.DocID)
		}
	}
	if !bytes.Equal(mds[0], mds[1]) {
		t.Error("score wrote different quality-summary.md for the same inputs")
	}
	for _, s := range []string{"1 graded results from the labels", "generated: 2026-01-02T00:00:00Z", "labels: `"} {
		if !bytes.Contains(mds[0], []byte(s)) {
			t.Errorf("quality-summary.md lacks %q", s)
		}
	}

	rep := t.TempDir()
	stdout.Reset()
	require.NoError(t, run([]string{"report", "-results", filepath.Join(out, "results"), "-out", rep}, &stdout, &stderr), stderr.String())
	for _, f := range append(report.Files, "plots/timing.svg") {
		if _, err := os.Stat(filepath.Join(rep, "cases-cases.all", f)); err != nil {
			t.Errorf("report output: %v", err)
		}
	}
}

func TestCampaignUsage(t *testing.T) {
	fx := filepath.Join("..", "..", "fixtures", "cases")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no cases", []string{"campaign", "-repos", "x.json"}, "need -repos and -cases"},
		{"unknown model", []string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"), "-models", "gpt-9"}, `unknown model "gpt-9"`},
		{"unknown baseline", []string{"campaign", "-repos", "a", "-cases", "b", "-models", "none", "-baseline", "dense/x"}, `-baseline "dense/x" is not one of the systems`},
		{"bad k", []string{"campaign", "-repos", "a", "-cases", "b", "-k", "0"}, "not a positive integer"},
		{"score both", []string{"score", "-run", "d", "-sheet", "a.csv", "-labels", "b.jsonl"}, "exactly one of -sheet and -labels"},
		{"report without results", []string{"report"}, "need -results"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(tc.args, &stdout, &stderr)
			if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v (exit %d), want usage error with %q", err, exitCode(err), tc.want)
			}
		})
	}
}

// TestPickSpecsStatic resolves a static model id to a static system spec
// and keeps dense ids on dense.
func TestPickSpecsStatic(t *testing.T) {
	specs, first, err := pickSpecs("minilm-l6-q,static-tokenlearn", "none", 0)
	require.NoError(t, err)
	require.Len(t, specs, 2)
	require.Equal(t, "dense/minilm-l6-q", specs[0].Name())
	require.Equal(t, "static/static-tokenlearn", specs[1].Name())
	require.Equal(t, "dense/minilm-l6-q", first)
	require.NotEmpty(t, specs[1].Hash)

	all, _, err := pickSpecs("all", "none", 0)
	require.NoError(t, err)
	var names []string
	for _, s := range all {
		names = append(names, s.Name())
	}
	require.Contains(t, names, "static/static-tokenlearn")
	require.Contains(t, names, "dense/mpnet-base-q")

	_, _, err = pickSpecs("nope", "none", 0)
	require.ErrorContains(t, err, `unknown model "nope"`)
}

// TestCampaignLoadExternal checks the configs campaign -systems loads: the
// listed files in order (spaces and empty entries ignored), each becoming
// the spec its config describes; a missing file and bad JSON fail the
// command, before any system runs, naming the file (and the line).
func TestCampaignLoadExternal(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(f, []byte(text), 0o644))
		return f
	}
	cmdFile := write("cmd.json", `{
  "system": "grepper", "config": "fast", "transport": "command",
  "command": {"search": ["grepper", "{query}"]},
  "result": {"from": "json", "items": "hits", "path": "file"},
  "only": ["cases/*"]
}`)
	blobFile := write("blob.json", `{
  "system": "docs-api", "config": "v1", "transport": "http",
  "http": {"url": "http://127.0.0.1:1/search?q={query}"},
  "result": {"from": "blob"},
  "tolerance": 0.02, "tolerance_reason": "the service reranks"
}`)
	badFile := write("bad.json", "{\n  \"system\": \"x\",\n  \"config\": \"y\"\n  \"transport\": \"command\"\n}\n") // no comma after line 3
	missing := filepath.Join(dir, "nosuch.json")

	t.Run("good", func(t *testing.T) {
		specs, err := loadExternal(" " + cmdFile + " ,, " + blobFile + ",")
		require.NoError(t, err)
		var got []string
		for _, s := range specs {
			got = append(got, s.Name())
			require.NoError(t, s.Validate(), s.Name())
		}
		require.Equal(t, []string{"grepper/fast", "docs-api/v1"}, got, "the files' system/config, in list order")
		require.Equal(t, []string{"cases/*"}, specs[0].Bench.Only, "only from cmd.json")
		require.False(t, specs[0].Composite, "cmd.json maps JSON items")
		require.True(t, specs[1].Composite, `blob.json's result is "from": "blob"`)
		require.Equal(t, 0.02, specs[1].Bench.Tolerance)
		require.Equal(t, "the service reranks", specs[1].Bench.ToleranceReason)
		require.NotEqual(t, specs[0].Hash, specs[1].Hash)

		none, err := loadExternal("")
		require.NoError(t, err)
		require.Empty(t, none, "no -systems: no external systems")
	})
	t.Run("missing", func(t *testing.T) {
		_, err := loadExternal(cmdFile + "," + missing)
		require.ErrorContains(t, err, "campaign: -systems:")
		require.ErrorContains(t, err, missing)
		require.ErrorIs(t, err, os.ErrNotExist)
	})
	t.Run("bad JSON", func(t *testing.T) {
		_, err := loadExternal(badFile)
		require.ErrorContains(t, err, "campaign: -systems:")
		require.ErrorContains(t, err, badFile+":4:")
		require.ErrorContains(t, err, "bad JSON")
		filelinetest.At(t, err, "bad.json", 4)
	})
	// Through the command: -systems fails it, not as a usage error, before
	// the (nonexistent) repos and cases are read.
	for _, tc := range []struct {
		name, file, want string
	}{
		{"campaign missing", missing, missing},
		{"campaign bad JSON", badFile, badFile + ":4:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run([]string{"campaign", "-repos", filepath.Join(dir, "no-repos.json"), "-cases", filepath.Join(dir, "no-cases.jsonl"),
				"-models", "none", "-systems", tc.file, "-out", t.TempDir()}, &stdout, &stderr)
			require.ErrorContains(t, err, "campaign: -systems: ")
			require.ErrorContains(t, err, tc.want)
			require.NotEqual(t, 2, exitCode(err), "a bad config file is not a usage error")
		})
	}
}

// TestCampaignFailedSystem: a system that indexes but fails every case (a
// search command that exits 1) is failed, listed unranked after BM25, and
// the command writes every report, then exits 1 naming it.
func TestCampaignFailedSystem(t *testing.T) {
	fx := filepath.Join("..", "..", "fixtures", "cases")
	dead := filepath.Join(t.TempDir(), "dead.json")
	require.NoError(t, os.WriteFile(dead, []byte(`{
  "system": "dead", "config": "x", "transport": "command",
  "command": {"search": ["sh", "-c", "echo model missing >&2; exit 1"]},
  "result": {"from": "json", "items": "hits", "path": "file"}
}`), 0o644))
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
		"-models", "none", "-systems", dead, "-pool", "3", "-cache", t.TempDir(), "-out", out, "-timestamp", "2026-01-01T00:00:00Z"}, &stdout, &stderr)
	require.Error(t, err, "a system failed every case")
	require.Equal(t, 1, exitCode(err))
	require.ErrorContains(t, err, "1 of 2 systems failed every case: dead/x")
	for _, f := range append(report.Files, "run.json", "grading-sheet.csv") {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("report not written before the failure exit: %v", err)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "quality-summary.md"))
	require.NoError(t, err)
	for _, want := range []string{"| 1 | bm25/code-weighted | ok |", "| – | dead/x | failed | 10 | 10 |", "| dead/x | **rejected** | system_failed |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("quality-summary.md lacks %q:\n%s", want, md)
		}
	}
}

// TestCampaignExternalAlone: -systems without -models or -bm25 runs the
// external systems alone, the first one the baseline.
func TestCampaignExternalAlone(t *testing.T) {
	fx := filepath.Join("..", "..", "fixtures", "cases")
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"a", "b"} {
		f := filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(f, []byte(`{
  "system": "grep-`+name+`", "config": "x", "transport": "command",
  "command": {"search": ["sh", "-c", "echo '{\"hits\": [{\"file\": \"README.md\"}]}'"]},
  "result": {"from": "json", "items": "hits", "path": "file"}
}`), 0o644))
		files = append(files, f)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
		"-systems", strings.Join(files, ","), "-pool", "3", "-cache", t.TempDir(), "-out", out, "-timestamp", "2026-01-01T00:00:00Z"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	require.Contains(t, stdout.String(), "10 cases, 2 systems")
	b, err := os.ReadFile(filepath.Join(out, "run.json"))
	require.NoError(t, err)
	var run campaignfmt.Campaign
	require.NoError(t, json.Unmarshal(b, &run))
	var names []string
	for _, s := range run.Systems {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"grep-a/x", "grep-b/x"}, names, "the external systems alone, in -systems order")
	md, err := os.ReadFile(filepath.Join(out, "quality-summary.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "Baseline: `grep-a/x`")
}
