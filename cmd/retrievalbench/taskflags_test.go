package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCampaignTaskTimeout: campaign -task-timeout sets the task timeout
// (a 1 ns one fails every BM25 search, naming the limit and the flag),
// and a bad value is bad usage (issue 39 item 4).
func TestCampaignTaskTimeout(t *testing.T) {
	fx := filepath.Join("..", "..", "fixtures", "cases")
	args := func(timeout, out string) []string {
		return []string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
			"-models", "none", "-pool", "3", "-cache", t.TempDir(), "-out", out, "-timestamp", "2026-01-01T00:00:00Z", "-task-timeout", timeout}
	}
	for _, bad := range []string{"0s", "-1m", "soon"} {
		var stdout, stderr bytes.Buffer
		err := run(args(bad, t.TempDir()), &stdout, &stderr)
		require.Error(t, err, bad)
		require.Equal(t, 2, exitCode(err), "-task-timeout %s", bad)
		require.Contains(t, err.Error()+stderr.String(), "task-timeout")
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(args("1ns", out), &stdout, &stderr)
	require.Error(t, err, "every search fails at a 1 ns task timeout")
	b, rerr := os.ReadFile(filepath.Join(out, "run.json"))
	require.NoError(t, rerr)
	n := strings.Count(string(b), "search timed out after 1ns (the task timeout: campaign -task-timeout raises it")
	t.Logf("%d searches timed out; campaign: %v", n, err)
	if n != 10 {
		t.Errorf("%d of the 10 cases' searches timed out at the 1 ns task timeout, want all: one timeout must not stop the repository's other tasks:\n%.2000s", n, b)
	}
}
