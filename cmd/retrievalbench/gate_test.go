package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestGateCommand(t *testing.T) {
	td := func(name string) string { return filepath.Join("..", "..", "gate", "testdata", name) }
	garbage := filepath.Join(t.TempDir(), "garbage.txt")
	require.NoError(t, os.WriteFile(garbage, []byte("BenchmarkX 10 fast ns/op\n"), 0o644))
	empty := filepath.Join(t.TempDir(), "empty.txt")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))

	tests := []struct {
		name       string
		args       []string
		wantCode   int // 0 for a nil error
		wantStdout []string
		wantErr    string
		reason     string
	}{
		{"regression", []string{td("base.txt"), td("search-30pct-slower.txt")}, 1,
			[]string{"FAIL: 2 regressed", "regressed (2):", "29.52% worse, over the 10% threshold"}, "FAIL: 2 regressed",
			"a 30% latency regression over 10 runs fails"},
		{"noise passes", []string{td("base.txt"), td("same-noise3.txt")}, 0,
			[]string{"PASS: 0 regressed", "regressed: none"}, "", "±3% noise is no regression"},
		{"quality drop", []string{td("base.txt"), td("hit10-drop.txt")}, 1,
			[]string{"hit@10", "exact unit moved in the bad direction"}, "FAIL: 1 regressed", "an exact unit may not drop at all"},
		{"looser threshold", []string{"-threshold", "0.5", td("base.txt"), td("search-30pct-slower.txt")}, 0,
			[]string{"PASS", "within the 50% threshold"}, "", "-threshold 0.5 tolerates a 30% slowdown"},
		{"markdown", []string{"-format", "md", td("base.txt"), td("search-30pct-faster.txt")}, 0,
			[]string{"## retrievalbench gate — PASS", "### Improved (2)"}, "", "-format md writes Markdown"},
		{"csv", []string{"-format=csv", td("n1-old.txt"), td("n1-new-50pct-slower.txt")}, 0,
			[]string{"verdict,benchmark,unit,", "too few runs,RepoQA/system=bm25/config=default/op=search-2,sec/op,lower,nothing,1,"}, "",
			"-format csv; n=1 is too few, not a regression"},
		{"fail-missing", []string{"-fail-missing", td("base.txt"), td("one-side.txt")}, 1,
			[]string{"present on one side only (7):"}, "7 present on one side only", "-fail-missing fails on a vanished benchmark"},
		{"missing file", []string{td("base.txt"), td("no-such-file.txt")}, 2, nil, "no-such-file.txt", "unreadable input exits 2"},
		{"malformed file", []string{td("base.txt"), garbage}, 2, nil, "garbage.txt:1: parsing measurement", "a malformed line exits 2 naming file:line"},
		{"empty file", []string{empty, td("base.txt")}, 2, nil, "empty.txt has no benchmark results", "an empty result file (a failed bench run) exits 2"},
		{"one argument", []string{td("base.txt")}, 2, nil, "want two files", "usage error"},
		{"bad format", []string{"-format", "xml", td("base.txt"), td("base.txt")}, 2, nil, `-format "xml"`, "usage error"},
		{"bad alpha", []string{"-alpha", "2", td("base.txt"), td("base.txt")}, 2, nil, "alpha 2", "Config.Validate runs before reading"},
		{"unknown flag", []string{"-nope", td("base.txt"), td("base.txt")}, 2, nil, "-nope", "flag errors are usage errors"},
		{"help", []string{"-h"}, 0, nil, "", "-h prints the usage and exits 0, as Go's flag package does"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(append([]string{"gate"}, tt.args...), &stdout, &stderr)
			code := 0
			if err != nil {
				code = exitCode(err)
			}
			if code != tt.wantCode {
				t.Fatalf("exit %d (err %v), want %d (%s)\nstdout:\n%s\nstderr:\n%s", code, err, tt.wantCode, tt.reason, stdout.String(), stderr.String())
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v, want it to contain %q (%s)", err, tt.wantErr, tt.reason)
			}
			for _, s := range tt.wantStdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q (%s):\n%s", s, tt.reason, stdout.String())
				}
			}
		})
	}
}

// TestCIDocExample runs every "$ retrievalbench gate …" example in
// docs/ci.md, from the repository root, and checks that the output shown
// (stdout, then the error line main prints, then "$ echo $?" and the exit
// status) is what the command prints today.
func TestCIDocExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci.md"))
	require.NoError(t, err)
	t.Chdir(filepath.Join("..", ".."))
	lines := strings.Split(string(doc), "\n")
	examples := 0
	for i := 0; i < len(lines); i++ {
		cmdline, ok := strings.CutPrefix(lines[i], "$ retrievalbench ")
		if !ok {
			continue
		}
		examples++
		var want []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			want = append(want, lines[i])
		}
		var stdout, stderr bytes.Buffer
		err := run(strings.Fields(cmdline), &stdout, &stderr)
		got := stdout.String()
		if err != nil {
			got += fmt.Sprintf("retrievalbench: %v\n$ echo $?\n%d\n", err, exitCode(err))
		} else {
			got += "$ echo $?\n0\n"
		}
		if diff := cmp.Diff(strings.Join(want, "\n")+"\n", got); diff != "" {
			t.Errorf("docs/ci.md example %q is stale (-doc +actual):\n%s", cmdline, diff)
		}
	}
	if examples == 0 {
		t.Fatal("docs/ci.md has no \"$ retrievalbench\" example")
	}
}
