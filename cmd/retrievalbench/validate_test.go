package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestValidate runs validate on a case file with a problem on almost every
// line: every problem is listed, each at its line, and the command exits 1;
// without -repos only what the file says alone is checked; the fixtures are
// valid (exit 0, one summary line).
func TestValidate(t *testing.T) {
	minikv, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "cases", "repos", "minikv"))
	require.NoError(t, err)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "manifest.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"minikv": {"path": "`+minikv+`", "commit": "x"},
 "gone": {"path": "no/such/dir", "commit": "x"}}`), 0o644))
	good := `{"id": "ID", "repo": "minikv", "intent": "symbol_lookup", "language": "python", "channel": "chat", "difficulty": "easy", "query": "q", "relevant": [{"kind": "symbol", "id": "Store.delete", "grade": 3}, {"kind": "file", "path": "minikv/store.py", "grade": 1}]}`
	line := func(id, old, repl string) string {
		return strings.Replace(strings.Replace(good, `"ID"`, `"`+id+`"`, 1), old, repl, 1)
	}
	lines := []struct {
		text  string
		want  string // the problem at this line ("" none)
		repos bool   // found only with -repos
	}{
		{line("ok-1", "", ""), "", false},
		{`{"id": "broken", "repo": `, "unexpected EOF", false},
		{line("typo", `"channel"`, `"chanel"`), `json: unknown field "chanel"`, false},
		{line("intent", "symbol_lookup", "vibes_lookup"), `intent: unknown intent "vibes_lookup" (valid: symbol_lookup, architecture_lookup, task_lookup, docs_lookup, error_or_trace_lookup)`, false},
		{line("nogold", `[{"kind": "symbol", "id": "Store.delete", "grade": 3}, {"kind": "file", "path": "minikv/store.py", "grade": 1}]`, `[]`), "nogold: no relevant judgments", false},
		{line("ok-1", "", ""), `duplicate id "ok-1" (first on line 1)`, false},
		{line("noid", `"id": "noid", `, ""), "missing id", false},
		{line("query", `"query": "q"`, `"query": " "`), "query: empty query", false},
		{line("kind", `"kind": "file"`, `"kind": "line"`), `kind: relevant[1]: unknown kind "line" (valid: file, symbol, doc_section, test, config)`, false},
		{line("grade", `"grade": 1`, `"grade": 5`), "grade: relevant[1]: grade 5 outside 0..3", false},
		{line("nograde", `, "grade": 1`, ``), "nograde: relevant[1]: missing grade", false},
		{line("nopath", `"path": "minikv/store.py", `, ``), "nopath: relevant[1]: needs a path", false},
		{line("tail", "", "") + ` {"id": "x"}`, "text after the case's JSON object", false},
		{line("repo", `"repo": "minikv"`, `"repo": "nokv"`), `repo: unknown repo "nokv" (manifest ` + manifest + ` has gone, minikv)`, true},
		{line("path", "minikv/store.py", "minikv/shop.py"), `path: relevant[1]: path "minikv/shop.py" not in the repository`, true},
		{line("symbol", "Store.delete", "Store.upsert"), `symbol: relevant[0]: symbol "Store.upsert": no definition in the repository`, true},
		{line("gone-1", `"repo": "minikv"`, `"repo": "gone"`), "gone-1: repo gone (manifest " + manifest + "): ", true},
		{line("gone-2", `"repo": "minikv"`, `"repo": "gone"`), "", false}, // its repository's failure is said once
		{line("ok-2", "", ""), "", false},
	}
	var text []string
	for _, l := range lines {
		text = append(text, l.text)
	}
	casesFile := filepath.Join(dir, "cases.jsonl")
	require.NoError(t, os.WriteFile(casesFile, []byte(strings.Join(text, "\n")+"\n"), 0o644))

	for _, withRepos := range []bool{true, false} {
		args := []string{"validate", "-cases", casesFile}
		if withRepos {
			args = append(args, "-repos", manifest)
		}
		name := "alone"
		if withRepos {
			name = "with-repos"
		}
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(args, &stdout, &stderr)
			require.Error(t, err)
			require.Equal(t, 1, exitCode(err))
			got := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			n := 0
			for i, l := range lines {
				if l.want == "" || l.repos && !withRepos {
					continue
				}
				n++
				prefix := casesFile + ":" + itoa(i+1) + ": "
				found := false
				for _, g := range got {
					found = found || strings.HasPrefix(g, prefix) && strings.Contains(g, l.want)
				}
				require.True(t, found, "line %d: want %q in\n%s", i+1, prefix+l.want, stdout.String())
			}
			require.Len(t, got, n, "one line per problem, nothing else:\n%s", stdout.String())
			require.ErrorContains(t, err, casesFile+": "+itoa(n)+" problems")
			require.Greater(t, n, 1)
		})
	}

	for _, fx := range []struct{ cases, repos, want string }{
		{"fixtures/cases/cases.jsonl", "fixtures/cases/manifest.json", "10 cases, 19 judgments, 2 repositories (minikv, shorturl): valid; every judgment found in its repository"},
		{"fixtures/campaign/cases.jsonl", "", "52 cases, 139 judgments, 2 repositories (flask, requests): valid; not checked against repositories (give -repos)"},
	} {
		args := []string{"validate", "-cases", filepath.Join("..", "..", fx.cases)}
		if fx.repos != "" {
			args = append(args, "-repos", filepath.Join("..", "..", fx.repos))
		}
		var stdout, stderr bytes.Buffer
		require.NoError(t, run(args, &stdout, &stderr), stdout.String())
		require.Equal(t, filepath.Join("..", "..", fx.cases)+": "+fx.want+"\n", stdout.String())
	}

	var stdout, stderr bytes.Buffer
	err = run([]string{"validate"}, &stdout, &stderr)
	require.Equal(t, 2, exitCode(err), "no -cases is bad usage")
	require.Contains(t, stderr.String(), "usage: retrievalbench validate -cases CASES [-repos MANIFEST]")
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestValidateDoc runs the validate commands of docs/cases.md (from the
// repository's root) and checks the valid file's line the doc shows.
func TestValidateDoc(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "docs", "cases.md"))
	require.NoError(t, err)
	doc := string(b)
	cmds := regexp.MustCompile(`(?m)^retrievalbench (validate [^#\n]*)`).FindAllStringSubmatch(doc, -1)
	require.Len(t, cmds, 2)
	for _, c := range cmds {
		args := strings.Fields(c[1])
		for i, a := range args {
			if strings.HasPrefix(a, "fixtures/") {
				args[i] = filepath.Join(root, a)
			}
		}
		var stdout, stderr bytes.Buffer
		require.NoError(t, run(args, &stdout, &stderr), c[0])
		line := strings.Replace(strings.TrimSpace(stdout.String()), root+string(filepath.Separator), "", 1)
		require.Contains(t, doc, "\n"+strings.SplitN(line, ": ", 2)[0]+": ", c[0])
		if strings.Contains(c[1], "-repos") {
			require.Contains(t, doc, "\n"+line+"\n", "the doc shows what %s prints", c[0])
		}
	}
}
