package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaign"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems/builtin"
)

// TestShardedCampaign runs a campaign over the case fixture (two
// repositories; BM25, the dense minilm-l6-q and a command-line external
// system: six cells) once whole and as three parts, each its own process,
// at the same time, sharing the cache; then as three parts balanced by a
// previous whole run's recorded cell times (-shard-costs).
//
// `campaign -merge WHOLE` writes the whole run's files again, byte for
// byte (a whole run is a part of one). The parts hold every cell once, and
// `campaign -merge A,B,C` writes the same files, byte for byte, as `campaign
// -merge WHOLE` once the measured times and memory (cell and index times,
// peak RSS, per-task latency) are set alike in both: run.json,
// part.json, results/, the pool and grading sheet, every report, the
// decisions and the plots.
func TestShardedCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs nine campaigns (-short)")
	}
	cache := testenv.CacheDir()
	dense, ok := builtin.Find(builtin.Specs(), "dense/minilm-l6-q")
	require.True(t, ok)
	if r := dense.Missing(cache); r != nil {
		testenv.Missing(t, r.Kind, r.Reason)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "retrievalbench")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building the command:\n%s", out)

	fx, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "cases"))
	require.NoError(t, err)
	ext := filepath.Join(tmp, "readme.json")
	require.NoError(t, os.WriteFile(ext, []byte(`{
  "system": "readme", "config": "x", "transport": "command",
  "command": {"search": ["sh", "-c", "echo '{\"hits\": [{\"file\": \"README.md\"}]}'"]},
  "result": {"from": "json", "items": "hits", "path": "file"}
}`), 0o644))
	campaignCmd := func(args ...string) (string, error) {
		cmd := exec.CommandContext(t.Context(), bin, append([]string{"campaign"}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			t.Logf("campaign %v:\n%s%s", args, stdout.String(), stderr.String())
		}
		return stdout.String(), err
	}
	flags := func(out string, more ...string) []string {
		return append([]string{"-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
			"-models", "minilm-l6-q", "-bm25", "code-weighted", "-systems", ext, "-pool", "3", "-cache", cache,
			"-timestamp", "2026-01-01T00:00:00Z", "-out", out}, more...)
	}

	// A first run fills the cache (so that every later run reuses the same
	// indexes) and records the cells' times.
	previous := filepath.Join(tmp, "previous")
	_, err = campaignCmd(flags(previous)...)
	require.NoError(t, err)
	whole := filepath.Join(tmp, "whole")
	wholeOut, err := campaignCmd(flags(whole)...)
	require.NoError(t, err)
	require.Contains(t, wholeOut, "10 cases, 3 systems")

	// A whole run is one part: merging it writes it again.
	again := filepath.Join(tmp, "again")
	againOut, err := campaignCmd("-merge", whole, "-out", again)
	require.NoError(t, err)
	require.Equal(t, strings.ReplaceAll(wholeOut, whole, "OUT"), strings.ReplaceAll(againOut, again, "OUT"))
	sameTree(t, whole, again)

	wholeN := normalized(t, whole, filepath.Join(tmp, "whole-normalized"))
	for _, round := range []struct {
		name  string
		flags []string
	}{
		{"round-robin", nil},
		{"by recorded cost", []string{"-shard-costs", previous}},
	} {
		t.Run(round.name, func(t *testing.T) {
			parts := make([]string, 3)
			errs := make([]error, 3)
			var wg sync.WaitGroup
			for i := range parts {
				parts[i] = filepath.Join(tmp, round.name, string(rune('A'+i)))
				wg.Go(func() {
					_, errs[i] = campaignCmd(flags(parts[i], append([]string{"-shard", string(rune('1'+i)) + "/3"}, round.flags...)...)...)
				})
			}
			wg.Wait()
			for i, err := range errs {
				require.NoError(t, err, "part %d/3", i+1)
			}

			// The parts hold every cell once.
			var union []string
			for i, p := range parts {
				cells := partCells(t, p)
				require.NotEmpty(t, cells, "part %d/3 ran no cell", i+1)
				t.Logf("part %d/3: %s", i+1, strings.Join(cells, ", "))
				union = append(union, cells...)
			}
			sort.Strings(union)
			require.Equal(t, partCells(t, whole), union, "the parts' cells are the whole run's, each once")

			var norm []string
			for _, p := range parts {
				norm = append(norm, normalized(t, p, p+"-normalized"))
			}
			fromWhole, fromParts := filepath.Join(tmp, round.name, "merged-whole"), filepath.Join(tmp, round.name, "merged-parts")
			wantOut, err := campaignCmd("-merge", wholeN, "-out", fromWhole)
			require.NoError(t, err)
			gotOut, err := campaignCmd("-merge", strings.Join(norm, ","), "-out", fromParts)
			require.NoError(t, err)
			require.Equal(t, strings.ReplaceAll(wantOut, fromWhole, "OUT"), strings.ReplaceAll(gotOut, fromParts, "OUT"))
			require.Contains(t, gotOut, "(", "decisions are printed")
			sameTree(t, fromWhole, fromParts)
		})
	}

	// Parts that are not every part of one campaign, each once, are refused.
	parts := filepath.Join(tmp, "round-robin")
	for _, tc := range []struct {
		dirs []string
		want string
	}{
		{[]string{filepath.Join(parts, "A"), filepath.Join(parts, "B")}, "part 3/3 is missing"},
		{[]string{filepath.Join(parts, "A"), filepath.Join(parts, "A"), filepath.Join(parts, "C")}, "are both part 1/3"},
		{[]string{filepath.Join(parts, "A"), filepath.Join(tmp, "by recorded cost", "B"), filepath.Join(parts, "C")}, "dealt the cells differently"},
		{[]string{whole, filepath.Join(parts, "B")}, "parts of runs sharded in 1 and in 3"},
	} {
		var stdout, stderr bytes.Buffer
		err := run([]string{"campaign", "-merge", strings.Join(tc.dirs, ","), "-out", filepath.Join(tmp, "refused")}, &stdout, &stderr)
		require.ErrorContains(t, err, tc.want)
	}
	var stderr bytes.Buffer
	err = run([]string{"campaign", "-merge", whole, "-out", filepath.Join(tmp, "x"), "-k", "1,3"}, &bytes.Buffer{}, &stderr)
	require.ErrorContains(t, err, "-merge takes only -out and -v")
}

// partCells lists the cells a campaign output directory's part.json ran.
func partCells(t *testing.T, dir string) []string {
	t.Helper()
	p, err := campaign.ReadPart(dir)
	require.NoError(t, err)
	var out []string
	for _, c := range p.Cells {
		out = append(out, c.System+" on "+c.Repo)
	}
	sort.Strings(out)
	return out
}

// measured matches the fields of part.json and of records that are
// measured times or memory, not results.
var measured = regexp.MustCompile(`"(seconds|index_seconds|index_build_seconds|peak_rss_mb|child_peak_rss|latency_ms)": ?[-+0-9.eE]+`)

// normalized copies what -merge reads of the campaign output dir (part.json
// and results/) to dst with every measured time and memory set to 1.
func normalized(t *testing.T, dir, dst string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "results", "*.jsonl"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dst, "results"), 0o755))
	for _, f := range append(files, filepath.Join(dir, campaign.PartFile)) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, f)
		require.NoError(t, os.WriteFile(filepath.Join(dst, rel), measured.ReplaceAll(b, []byte(`"$1": 1`)), 0o644))
	}
	b, err := os.ReadFile(filepath.Join(dst, campaign.PartFile))
	require.NoError(t, err)
	require.True(t, json.Valid(b))
	return dst
}

// sameTree requires every file under want and got to be the same, byte for
// byte.
func sameTree(t *testing.T, want, got string) {
	t.Helper()
	w, g := tree(t, want), tree(t, got)
	require.NotEmpty(t, w)
	require.Equal(t, keys(w), keys(g), "the same files")
	for name := range w {
		if !bytes.Equal(w[name], g[name]) {
			t.Errorf("%s differs (-%s +%s):\n%s", name, want, got, cmp.Diff(string(w[name]), string(g[name])))
		}
	}
}
