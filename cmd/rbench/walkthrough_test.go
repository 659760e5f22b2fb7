package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// step is one shell command of the walk-through and whether the doc says
// it fails.
type step struct {
	cmd   string
	fails bool
}

// walkthrough reads docs/your-module.md: the Go files (a fenced block after
// "<!-- file: NAME -->"), the commands of its sh blocks in order, and the
// run: lines of its yaml block.
func walkthrough(t *testing.T, path string) (files map[string]string, steps []step, ciRuns []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	files = map[string]string{}
	comment := regexp.MustCompile(`\s+#\s.*$`)
	var lang, file string
	var block []string
	pending := ""
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case lang == "" && strings.HasPrefix(line, "<!-- file: "):
			pending = strings.TrimSuffix(strings.TrimPrefix(line, "<!-- file: "), " -->")
		case lang == "" && strings.HasPrefix(line, "```"):
			lang, file, block = strings.TrimPrefix(line, "```"), pending, nil
			pending = ""
		case lang != "" && line == "```":
			switch {
			case file != "":
				files[file] = strings.Join(block, "\n") + "\n"
			case lang == "sh":
				for _, l := range block {
					steps = append(steps, step{cmd: strings.TrimSpace(comment.ReplaceAllString(l, "")), fails: strings.Contains(l, "# fails:")})
				}
			case lang == "yaml":
				for _, l := range block {
					if _, run, ok := strings.Cut(l, "- run: "); ok {
						ciRuns = append(ciRuns, run)
					}
				}
			}
			lang = ""
		case lang != "":
			block = append(block, line)
		}
	}
	require.NoError(t, sc.Err())
	return files, steps, ciRuns
}

// TestWalkthrough runs docs/your-module.md in a throwaway module next to a
// link to this checkout, offline (GOPROXY=off, the checksum database
// untouched): every command in order, each that the doc says fails
// failing and each other one passing; the first run's one command for the
// missing golden files is the doc's next command; CI's commands are among
// those run; and the module's go.sum has no ONNX Runtime, MCP SDK, OAuth or
// plotting code.
func TestWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module and runs its tests and benchmarks (-short)")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	mustHaveModules(t, root)
	files, steps, ciRuns := walkthrough(t, filepath.Join(root, "docs", "your-module.md"))
	require.Contains(t, files, "trigram.go")
	require.Contains(t, files, "trigram_test.go")
	require.NotEmpty(t, steps)

	tmp := t.TempDir()
	require.NoError(t, os.Symlink(root, filepath.Join(tmp, "retrievalbench")))
	dir := filepath.Join(tmp, "trigram")
	require.NoError(t, os.Mkdir(dir, 0o755))
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	env := map[string]string{"GOPROXY": "off", "GOFLAGS": "", "RETRIEVALBENCH_RESULTS": "", "RETRIEVALBENCH_BENCH_DELAY": ""}
	environ := func() []string {
		var out []string
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); env[k] == "" {
				if _, set := env[k]; set {
					continue
				}
			}
			out = append(out, kv)
		}
		for k, v := range env {
			if v != "" {
				out = append(out, k+"="+v)
			}
		}
		return out
	}
	missing := regexp.MustCompile(`create every missing one with: (.*)`)
	ran := map[string]bool{}
	for i, s := range steps {
		if k, v, ok := strings.Cut(strings.TrimPrefix(s.cmd, "export "), "="); ok && strings.HasPrefix(s.cmd, "export ") {
			env[k] = v
			continue
		}
		cmd := exec.CommandContext(t.Context(), "sh", "-c", s.cmd)
		cmd.Dir, cmd.Env = dir, environ()
		out, err := cmd.CombinedOutput()
		ran[s.cmd] = true
		if s.fails {
			require.Error(t, err, "%s: the doc says it fails; it passed:\n%s", s.cmd, out)
		} else {
			require.NoError(t, err, "%s:\n%s", s.cmd, out)
		}
		if m := missing.FindAllStringSubmatch(string(out), -1); len(m) > 0 {
			require.Less(t, i+1, len(steps))
			require.Equal(t, steps[i+1].cmd, strings.TrimSpace(m[len(m)-1][1]), "the doc's next command is the one the first run prints")
		}
		t.Logf("%s: ok", s.cmd)
	}
	for _, r := range ciRuns {
		require.True(t, ran[r], "the CI job's %q is not a command the walk-through ran", r)
	}

	goldens, err := filepath.Glob(filepath.Join(dir, "testdata", "golden", "*", "*", "*", "*.json"))
	require.NoError(t, err)
	require.Len(t, goldens, 4, "trigram and bm25/porter on the RepoQA and case fixtures")
	for _, f := range []string{"out/leaderboard/index.html", "old.txt", "new.txt"} {
		_, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
	}
	sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	require.NoError(t, err)
	// go mod tidy records the checksums of the code of every package the
	// module builds, tests of its dependencies included: neither rbench nor
	// benchtest's or leaderboard's tests may bring ONNX Runtime, the MCP SDK,
	// OAuth, or plotting (gonum/plot, its images, fonts and LaTeX).
	for _, heavy := range []string{"github.com/yalue/onnxruntime_go", "github.com/modelcontextprotocol/go-sdk", "golang.org/x/oauth2",
		"gonum.org/v1/plot", "golang.org/x/image", "codeberg.org/go-fonts/liberation", "codeberg.org/go-latex/latex", "github.com/ajstarks/svgo"} {
		for _, l := range strings.Split(string(sum), "\n") {
			if strings.HasPrefix(l, heavy+" ") && !strings.Contains(l, "/go.mod ") {
				t.Errorf("go.sum holds %s's code: %s", heavy, l)
			}
		}
	}
	t.Logf("go.sum: %d lines", strings.Count(string(sum), "\n"))
}

// mustHaveModules stops t (testenv.Missing, kind testenv.GoModules) unless
// the Go module cache holds every module of root's module graph: the
// walk-through's go mod tidy runs offline and needs the modules of its
// dependencies' tests too (go-tree-sitter's grammars for C, Ruby, PHP, …),
// which building and testing this module never downloads. make modules
// (a prerequisite of make test) downloads them.
func mustHaveModules(t *testing.T, root string) {
	t.Helper()
	// On a copy of go.mod and go.sum (-modfile): go mod download records
	// hashes in go.sum, and the checkout must stay tidy.
	tmp := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(tmp, f), b, 0o644))
	}
	cmd := exec.CommandContext(t.Context(), "go", "mod", "download", "-json", "-modfile="+filepath.Join(tmp, "go.mod"), "all")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err == nil {
		return
	}
	var missing []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m struct{ Path, Version, Error string }
		if dec.Decode(&m) != nil {
			break
		}
		if m.Error != "" {
			missing = append(missing, m.Path+"@"+m.Version)
		}
	}
	if len(missing) > 6 {
		missing = append(missing[:6], fmt.Sprintf("and %d more", len(missing)-6))
	}
	testenv.Missing(t, testenv.GoModules, fmt.Sprintf("the Go module cache lacks modules the walk-through's offline go mod tidy needs "+
		"(go mod download all with GOPROXY=off: %v): %s; run `make modules` (go mod download all) once where the module proxy is reachable",
		err, strings.Join(missing, ", ")))
}
