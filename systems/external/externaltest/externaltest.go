// Package externaltest gives other packages' tests a real external system:
// systems/external's test program fakepeer, built for the test and driven
// as a command-line tool (a word count over the handed-over files; each hit
// the file's first matching line and the next, the def or class above it
// as the symbol).
package externaltest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external"
)

// CommandConfig is fakepeer as a command-line external system; its
// program is $FAKEPEER, and $FAKEPEER_LINGER reaches it.
const CommandConfig = `{
	"system": "fakepeer", "config": "cmd", "transport": "command", "env_pass": ["FAKEPEER_LINGER"],
	"command": {"search": ["${FAKEPEER}", "search", "-k", "{k}", "{corpus}", "{query}"]},
	"result": {"from": "json", "items": "results", "path": "file", "start_line": "lines.start",
		"end_line": "lines.end", "symbol": "name", "score": "score", "text": "snippet"}
}`

// ToyFiles is four Python files as a loader gives them (one doc per file):
// frobnicate calls scale, helper calls frobnicate; the corpus the hybrid and
// graph tests work fakepeer's answers out by hand against.
func ToyFiles() *corpus.Corpus {
	return &corpus.Corpus{ID: "toy", Docs: []corpus.Doc{
		{ID: "pkg/a.py", Path: "pkg/a.py", Kind: "file", Language: "python",
			Text: "import os\n\n\ndef frobnicate(x):\n    \"\"\"Frobnicate x.\"\"\"\n    return scale(x)\n\n\ndef scale(x):\n    return x * 2\n"},
		{ID: "pkg/b.py", Path: "pkg/b.py", Kind: "file", Language: "python",
			Text: "class Widget:\n    \"\"\"A widget on screen.\"\"\"\n\n    def render(self):\n        return 'widget'\n\n    def resize(self, w):\n        self.w = w\n"},
		{ID: "pkg/c.py", Path: "pkg/c.py", Kind: "file", Language: "python",
			Text: "def helper():\n    # calls the frobnicator\n    return frobnicate(1)\n"},
		{ID: "pkg/d.py", Path: "pkg/d.py", Kind: "file", Language: "python",
			Text: "def render_all():\n    return superwidgetry()\n"},
	}}
}

// FakepeerSpec builds systems/external/testdata/fakepeer into the test's
// temporary directory, points $FAKEPEER at it, sets $FAKEPEER_LINGER and
// returns the Spec of CommandConfig.
func FakepeerSpec(t testing.TB) systems.Spec {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("externaltest: no source location for testdata/fakepeer")
	}
	src := filepath.Join(filepath.Dir(file), "..", "testdata", "fakepeer")
	bin := filepath.Join(t.TempDir(), "fakepeer")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", src, err, out)
	}
	t.Setenv("FAKEPEER", bin)
	// Each run lives long enough for PeakRSS's first look (fakepeer's
	// linger): the tests that expand or fuse it check its peak arrives.
	t.Setenv("FAKEPEER_LINGER", "100ms")
	cfg, err := external.Parse("fakepeer.json", []byte(CommandConfig))
	if err != nil {
		t.Fatal(err)
	}
	return external.Spec(cfg)
}
