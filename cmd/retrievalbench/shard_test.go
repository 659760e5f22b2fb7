package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShardedLeaderboard runs a suite's cells (benchtest's own child tests:
// BM25 porter and unicode61 on the RepoQA, TREC and case fixtures, 6
// cells) once whole and as three shards, each its own process, at the same
// time, sharing the index cache; then as three shards balanced by the
// whole run's recorded cell times (-shard-costs). The shards' results
// directories partition the whole run's, and `leaderboard -results A,B,C`
// writes the same files, byte for byte, as `leaderboard -results WHOLE`
// once the timings (per-task latency, index time, cell time, peak RSS) are
// set alike in both.
func TestShardedLeaderboard(t *testing.T) {
	if testing.Short() {
		t.Skip("builds benchtest's test binary and runs it seven times (-short)")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "benchtest.test")
	build := exec.CommandContext(t.Context(), "go", "test", "-c", "-o", bin, "github.com/retrievalbench/retrievalbench/benchtest")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building benchtest's test binary:\n%s", out)

	golden := filepath.Join(tmp, "golden")
	cells := func(args ...string) error {
		cmd := exec.CommandContext(t.Context(), bin, append([]string{"-test.run=^TestFirstRunChild", "-size=fixture"}, args...)...)
		cmd.Env = append(os.Environ(), "BENCHTEST_FIRST_RUN_GOLDEN="+golden, "RETRIEVALBENCH_RESULTS=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("%v:\n%s", args, out)
		}
		return err
	}
	whole := filepath.Join(tmp, "whole")
	require.NoError(t, cells("-create", "-results", whole))
	recorded, err := os.ReadFile(filepath.Join(whole, "repoqa-fixture.all.bm25.porter.cell.json"))
	require.NoError(t, err)
	require.Regexp(t, `"cell": "repoqa/bm25/porter/fixture",\s+"seconds": [0-9.e-]+`, string(recorded), "a cell file records what -shard-costs reads")

	for _, round := range []struct {
		name  string
		flags []string
	}{
		{"round-robin", nil},
		{"by recorded cost", []string{"-shard-costs", whole}},
	} {
		t.Run(round.name, func(t *testing.T) {
			parts := make([]string, 3)
			var wg sync.WaitGroup
			errs := make([]error, 3)
			for i := range parts {
				parts[i] = filepath.Join(tmp, round.name, string(rune('A'+i)))
				wg.Go(func() {
					errs[i] = cells(append([]string{"-shard", string(rune('1'+i)) + "/3", "-results", parts[i]}, round.flags...)...)
				})
			}
			wg.Wait()
			for i, err := range errs {
				require.NoError(t, err, "shard %d/3", i+1)
			}

			// The shards partition the cells.
			var union []string
			for i, p := range parts {
				names := cellFiles(t, p)
				require.NotEmpty(t, names, "shard %d/3 ran no cell", i+1)
				t.Logf("shard %d/3: %s", i+1, strings.Join(names, " "))
				union = append(union, names...)
			}
			sort.Strings(union)
			require.Equal(t, cellFiles(t, whole), union, "the shards' cells are the whole run's, each once")

			wholeBoard, partsBoard := filepath.Join(tmp, round.name, "board-whole"), filepath.Join(tmp, round.name, "board-parts")
			for _, d := range append([]string{whole}, parts...) {
				sameTimings(t, d)
			}
			var stdout bytes.Buffer
			require.NoError(t, run([]string{"leaderboard", "-results", whole, "-out", wholeBoard}, &stdout, &bytes.Buffer{}))
			wantOut := strings.ReplaceAll(stdout.String(), wholeBoard, "OUT")
			stdout.Reset()
			require.NoError(t, run([]string{"leaderboard", "-results", strings.Join(parts, ","), "-out", partsBoard}, &stdout, &bytes.Buffer{}))
			require.Equal(t, wantOut, strings.ReplaceAll(stdout.String(), partsBoard, "OUT"))

			sameTree(t, wholeBoard, partsBoard)
		})
	}

	// A cell in two parts is refused.
	err = run([]string{"leaderboard", "-results", whole + "," + whole, "-out", filepath.Join(tmp, "dup")}, &bytes.Buffer{}, &bytes.Buffer{})
	require.ErrorContains(t, err, "a cell in two parts of a sharded run")
}

// cellFiles lists the cell files of a results directory.
func cellFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.cell.json"))
	require.NoError(t, err)
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	sort.Strings(m)
	return m
}

// timing matches the fields of records and cell files that are measured
// times or memory, not results.
var timing = regexp.MustCompile(`"(latency_ms|index_seconds|seconds|peak_rss_mb)": ?[-+0-9.eE]+`)

// sameTimings sets every timing of the results in dir to 1.
func sameTimings(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json*"))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(f, timing.ReplaceAll(b, []byte(`"$1": 1`)), 0o644))
	}
}

// tree reads every file under dir, by path relative to it.
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = b
		return err
	})
	require.NoError(t, err)
	return files
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
