package external

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
)

// The tests run real processes: testdata/fakepeer, built once per test
// binary, as a command-line tool, an MCP server and an HTTP server.
var (
	fakepeerOnce sync.Once
	fakepeerBin  string
	fakepeerErr  error
	fakepeerDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fakepeerBin != "" {
		// Nothing the tests started may outlive them.
		if left := running(fakepeerBin); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: fakepeer processes left running after the tests: %v\n", left)
			code = 1
		}
		os.RemoveAll(fakepeerDir)
	}
	os.Exit(code)
}

// running returns the pids of live processes running the program bin,
// waiting a little for ones that are being killed.
func running(bin string) []int {
	var left []int
	for range 50 {
		left = left[:0]
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == bin && alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return left
}

// fakepeer builds testdata/fakepeer and points $FAKEPEER at it.
func fakepeer(t testing.TB) string {
	t.Helper()
	fakepeerOnce.Do(func() {
		fakepeerDir, fakepeerErr = os.MkdirTemp("", "fakepeer-")
		if fakepeerErr != nil {
			return
		}
		fakepeerBin = filepath.Join(fakepeerDir, "fakepeer")
		out, err := exec.Command("go", "build", "-o", fakepeerBin, "./testdata/fakepeer").CombinedOutput()
		if err != nil {
			fakepeerErr = fmt.Errorf("go build ./testdata/fakepeer: %v\n%s", err, out)
		}
	})
	require.NoError(t, fakepeerErr)
	t.Setenv("FAKEPEER", fakepeerBin)
	return fakepeerBin
}

// testCorpus is three files whose word counts the expected hits of the
// tests are worked out from by hand.
func testCorpus() *corpus.Corpus {
	return &corpus.Corpus{ID: "test/repo", Commit: "abc", Docs: []corpus.Doc{
		{ID: "pkg/a.py", Path: "pkg/a.py", Kind: "file", Text: "import os\n\ndef frobnicate(x):\n    return x\n"},
		{ID: "pkg/b.py", Path: "pkg/b.py", Kind: "file", Text: "class Widget:\n    def render(self):\n        return 'widget frobnicate widget'\n"},
		{ID: "README.md", Path: "README.md", Kind: "file", Text: "Widget docs\n"},
	}}
}

// Expected hits of the fakepeer's word-count search over testCorpus.
var (
	// "widget": b.py has it 3 times from line 1 (class Widget), README once.
	wantWidget = []systems.Hit{
		{Path: "pkg/b.py", StartLine: 1, EndLine: 2, Symbol: "Widget", Score: 3, Text: "class Widget:"},
		{Path: "README.md", StartLine: 1, EndLine: 2, Score: 1, Text: "Widget docs"},
	}
	// "frobnicate": once in each .py on line 3; the tie breaks by path.
	wantFrob = []systems.Hit{
		{Path: "pkg/a.py", StartLine: 3, EndLine: 4, Symbol: "frobnicate", Score: 1, Text: "def frobnicate(x):"},
		{Path: "pkg/b.py", StartLine: 3, EndLine: 4, Symbol: "render", Score: 1, Text: "return 'widget frobnicate widget'"},
	}
)

// mapAll is the result mapping of the fakepeer's JSON.
const mapAll = `"result": {"from": %q, "items": "results", "path": "file", "start_line": "lines.start",
	"end_line": "lines.end", "symbol": "name", "score": "score", "text": "snippet"}`

// setup loads the config text (written to a file), builds the system with
// a fresh cache and indexes testCorpus; Close runs at cleanup.
func setup(t testing.TB, cfgText string) (*System, string) {
	t.Helper()
	s, cache, err := trySetup(t, cfgText)
	require.NoError(t, err)
	return s, cache
}

func trySetup(t testing.TB, cfgText string) (*System, string, error) {
	t.Helper()
	fakepeer(t)
	file := filepath.Join(t.TempDir(), "peer.json")
	require.NoError(t, os.WriteFile(file, []byte(cfgText), 0o644))
	cfg, err := Load(file)
	require.NoError(t, err)
	cache := t.TempDir()
	s, err := New(cfg, systems.Options{CacheDir: cache, Logf: t.Logf})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, cache, s.Index(t.Context(), testCorpus())
}

// alive reports whether pid is a live process (a zombie is dead).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) S …: the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitDead waits for pid to die; the tests fail if it does not within a
// generous bound (this bounds a hang, it does not measure speed).
func waitDead(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Errorf("%s (pid %d) still running", what, pid)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pids reads the "what pid" lines fakepeer appends to $FAKEPEER_PIDFILE.
func pids(t *testing.T, file string) map[string][]int {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	out := map[string][]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		what, n, _ := strings.Cut(line, " ")
		pid, err := strconv.Atoi(n)
		require.NoError(t, err, line)
		out[what] = append(out[what], pid)
	}
	return out
}

func diffHits(t *testing.T, what string, want, got []systems.Hit) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: hits (-want +got):\n%s", what, diff)
	}
}
