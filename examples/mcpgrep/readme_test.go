package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"example.com/wordcount/wordcount"
	"github.com/retrievalbench/retrievalbench/benchtest"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external"
)

var flags = benchtest.NewFlags(flag.CommandLine)

// TestMain builds this MCP server for the config (mcpgrep.json reads its
// path from $MCPGREP), as a user's CI would install theirs.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpgrep")
	if err != nil {
		panic(err)
	}
	bin := filepath.Join(dir, "mcpgrep")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	os.Setenv("MCPGREP", bin)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// The body of TestReadme is the README's "Benchmark your own system"
// example, line for line (TestReadmeShowsThisTest checks it).
func TestReadme(t *testing.T) {
	// README:begin
	mcpServer, err := external.Load("mcpgrep.json") // any MCP server, from a config file
	if err != nil {
		t.Fatal(err)
	}
	suite := benchtest.Suite{
		Systems: []systems.Spec{wordcount.Spec(), external.Spec(mcpServer)}, // a Go system and an MCP server
		Golden:  "testdata/golden",
		Flags:   flags,
	}
	benchtest.Test(t, suite, benchtest.RepoQA()) // TestReadme/mcpgrep/window12/fixture, …
	// README:end
}

// TestCases runs the same two systems on the case-file fixture (graded
// gold of files, symbols and documentation sections).
func TestCases(t *testing.T) {
	mcpServer, err := external.Load("mcpgrep.json")
	if err != nil {
		t.Fatal(err)
	}
	suite := benchtest.Suite{Systems: []systems.Spec{wordcount.Spec(), external.Spec(mcpServer)}, Golden: "testdata/golden", Flags: flags}
	benchtest.Test(t, suite, benchtest.Cases())
}

// TestReadmeShowsThisTest is the doc test: the README's example block must
// be the code between the README markers above, so the lines a reader
// copies are the lines that ran.
func TestReadmeShowsThisTest(t *testing.T) {
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := between(string(src), "\t// README:begin\n", "\t// README:end\n")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := between(string(readme), "<!-- examples/mcpgrep/readme_test.go -->\n```go\n", "```\n")
	var want []string
	for _, l := range strings.Split(strings.TrimSuffix(code, "\n"), "\n") {
		want = append(want, strings.TrimPrefix(l, "\t"))
	}
	got := strings.TrimSuffix(block, "\n")
	if !strings.Contains(got, strings.Join(want, "\n")) {
		t.Errorf("README's example is not TestReadme's body.\nREADME:\n%s\nTestReadme:\n%s", got, strings.Join(want, "\n"))
	}
	if n := strings.Count(got, "\n") + 1; n >= 20 {
		t.Errorf("the README example has %d lines; keep it under 20", n)
	}
}

func between(s, start, end string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	s = s[i+len(start):]
	j := strings.Index(s, end)
	if j < 0 {
		return ""
	}
	return s[:j]
}
