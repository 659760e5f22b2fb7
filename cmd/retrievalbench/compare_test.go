package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// TestCompareIsBenchstat runs `retrievalbench compare` and `go tool
// benchstat` (the tool directive of this module's go.mod: the x/perf
// version compare is built from) on the same files and flags, and wants the
// same bytes on stdout and stderr.
func TestCompareIsBenchstat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs go tool benchstat (-short)")
	}
	td := func(name string) string { return filepath.Join("..", "..", "gate", "testdata", name) }
	dir := t.TempDir()
	// Two commits' files, as make bench writes them: only -ignore commit
	// puts them in one table.
	base, err := os.ReadFile(td("base.txt"))
	require.NoError(t, err)
	head := filepath.Join(dir, "head.txt")
	require.NoError(t, os.WriteFile(head, bytes.ReplaceAll(base, []byte("commit: 1111111"), []byte("commit: 2222222")), 0o644))
	bad := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(bad, append([]byte("BenchmarkX 10 fast ns/op\n"), base...), 0o644))

	tests := []struct {
		name   string
		args   []string
		reason string
	}{
		{"two files", []string{td("base.txt"), td("search-30pct-slower.txt")}, "the default projection: a table per configuration"},
		{"ignore commit", []string{"-ignore", "commit", td("base.txt"), td("search-30pct-slower.txt")}, "make compare's -ignore commit: one table, with a vs base column"},
		{"same commit", []string{td("base.txt"), head}, "files differing only in their commit line"},
		{"three files with labels", []string{"-ignore", "commit", "old=" + td("base.txt"), "noise=" + td("same-noise3.txt"), "new=" + td("search-30pct-faster.txt")}, "LABEL=FILE and more than two columns"},
		{"pivot", []string{"-filter", `/op:search .unit:("hit@10" OR "sec/op")`, "-row", "/config", "-col", ".file", "-ignore", "commit", td("base.txt"), td("hit10-drop.txt")}, "docs/benchmarking.md's filter and pivot; an exact unit that moved"},
		{"columns by config", []string{"-col", "/config", td("base.txt")}, "one file, configs compared"},
		{"n=1", []string{"-ignore", "commit", td("n1-old.txt"), td("n1-new-50pct-slower.txt")}, "one run a side: no p-value"},
		{"csv", []string{"-format", "csv", "-ignore", "commit", td("base.txt"), td("search-30pct-slower.txt")}, "-format csv"},
		{"alpha and confidence", []string{"-alpha", "0.01", "-confidence", "0.9", "-ignore", "commit", td("base.txt"), td("search-30pct-slower.txt")}, "the statistics flags"},
		{"syntax error", []string{bad, td("base.txt")}, "a line that does not parse is reported on stderr and reading goes on"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var wantOut, wantErr bytes.Buffer
			cmd := exec.CommandContext(t.Context(), "go", append([]string{"tool", "benchstat"}, tc.args...)...)
			cmd.Stdout, cmd.Stderr = &wantOut, &wantErr
			require.NoError(t, cmd.Run(), "go tool benchstat: %s", wantErr.String())
			var gotOut, gotErr bytes.Buffer
			require.NoError(t, run(append([]string{"compare"}, tc.args...), &gotOut, &gotErr))
			require.NotEmpty(t, wantOut.String())
			if diff := cmp.Diff(wantOut.String(), gotOut.String()); diff != "" {
				t.Errorf("%s: stdout differs from benchstat's (-benchstat +compare):\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(wantErr.String(), gotErr.String()); diff != "" {
				t.Errorf("%s: stderr differs from benchstat's (-benchstat +compare):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCompareUsage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no files", nil, "want at least one benchmark file"},
		{"bad format", []string{"-format", "xml", "x.txt"}, "-format must be text or csv"},
		{"bad alpha", []string{"-alpha", "2", "x.txt"}, "-alpha must be in range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(append([]string{"compare"}, tc.args...), &bytes.Buffer{}, &stderr)
			require.Error(t, err)
			require.Equal(t, 2, exitCode(err), "bad usage exits 2")
			require.True(t, strings.Contains(err.Error(), tc.wantErr), "error %q lacks %q", err, tc.wantErr)
		})
	}
	err := run([]string{"compare", "no-such-file.txt"}, &bytes.Buffer{}, &bytes.Buffer{})
	require.ErrorContains(t, err, "no-such-file.txt")
	require.Equal(t, 1, exitCode(err))
}
