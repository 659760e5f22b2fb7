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
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
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
	benchtest.Test(t, suite, catalogue.RepoQA()) // TestReadme/mcpgrep/window12/fixture, …
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
	benchtest.Test(t, suite, catalogue.Cases())
}

// TestReadmeShowsThisTest is the doc test: the README's example block must
// be the code between the README markers above, so the lines a reader
// copies are the lines that ran. Each marker must be there once and the
// code between them must not be blank: without that, an empty block would
// be "contained" in any README and the test would pass vacuously.
func TestReadmeShowsThisTest(t *testing.T) {
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := markedBlock(t, "readme_test.go", string(src), "\t// README:begin\n", "\t// README:end\n")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := markedBlock(t, "../../README.md", string(readme), "<!-- examples/mcpgrep/readme_test.go -->\n```go\n", "```\n")
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

// markedBlock returns the text of file between start and end, failing the
// test when start is missing or repeated, end does not follow it, or the
// text between them is blank.
func markedBlock(t *testing.T, file, s, start, end string) string {
	t.Helper()
	switch n := strings.Count(s, start); {
	case n == 0:
		t.Fatalf("%s: no %q marker", file, start)
	case n > 1:
		t.Fatalf("%s: %d %q markers, want one", file, n, start)
	}
	_, rest, _ := strings.Cut(s, start)
	block, _, ok := strings.Cut(rest, end)
	if !ok {
		t.Fatalf("%s: no %q after %q", file, end, start)
	}
	if strings.TrimSpace(block) == "" {
		t.Fatalf("%s: nothing between %q and %q", file, start, end)
	}
	return block
}
