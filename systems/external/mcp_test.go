package external

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/systems"
)

func mcpConfig(tool, from, extra string) string {
	return `{
	"system": "fakepeer", "env_pass": ["FAKEPEER_PIDFILE"], "config": "mcp",
	"env": {"API_KEY": "${FAKEPEER_TEST_KEY:-none}"},
	"secrets": ["API_KEY"],
	"transport": "mcp",
	"mcp": {"command": ["${FAKEPEER}", "mcp", "{corpus}"],
	        "calls": [{"tool": "` + tool + `", "arguments": {"query": "{query}", "limit": "{k}"}}]},
	` + fmt.Sprintf(mapAll, from) + extra + `
}`
}

func TestMCPStructured(t *testing.T) {
	s, _ := setup(t, mcpConfig("search", FromStructured, `, "timeout": "20s"`))
	got, err := s.Search(t.Context(), "widget", 10)
	require.NoError(t, err)
	diffHits(t, "widget", wantWidget, got)
	got, err = s.SearchQuery(t.Context(), systems.Query{Text: "frobnicate", Repo: "test/repo"}, 1)
	require.NoError(t, err)
	diffHits(t, "frobnicate k=1 (limit sent as the number 1)", wantFrob[:1], got)
	if w := s.Warnings(); w != nil {
		t.Errorf("Warnings = %q, want none: every path was under the corpus", w)
	}
}

func TestMCPTextJSON(t *testing.T) {
	// search_text returns corpus-relative paths as JSON text, no
	// structuredContent.
	s, _ := setup(t, mcpConfig("search_text", FromJSON, ""))
	got, err := s.Search(t.Context(), "frobnicate", 10)
	require.NoError(t, err)
	diffHits(t, "frobnicate", wantFrob, got)

	_, err = trySearch(t, mcpConfig("search_text", FromStructured, ""), "frobnicate")
	if err == nil || !strings.Contains(err.Error(), "no structuredContent") {
		t.Errorf("from structured on a text-only tool: err = %v", err)
	}
}

func TestMCPTextSections(t *testing.T) {
	// search_md answers in markdown sections, as pydocs-mcp does:
	// "## Symbol — /abs/path:3-4 (score 1)" then the snippet.
	s, _ := setup(t, `{
	"system": "fakepeer", "env_pass": ["FAKEPEER_PIDFILE"], "config": "md", "transport": "mcp",
	"mcp": {"command": ["${FAKEPEER}", "mcp", "{corpus}"], "protocol_version": "2025-06-18",
	        "calls": [{"tool": "search_md", "arguments": {"query": "{query}", "limit": "{k}"}}]},
	"result": {"from": "text",
	           "item_regex": "(?m)^## (?P<symbol>\\S+) — (?P<path>[^:\\n]+):(?P<start_line>\\d+)-(?P<end_line>\\d+) \\(score (?P<score>\\d+)\\)$"}
}`)
	got, err := s.Search(t.Context(), "widget", 10)
	require.NoError(t, err)
	want := []systems.Hit{
		{Path: "pkg/b.py", StartLine: 1, EndLine: 2, Symbol: "Widget", Score: 3, Text: "## Widget — " + s.m.Dir() + "/pkg/b.py:1-2 (score 3)\nclass Widget:"},
		{Path: "README.md", StartLine: 1, EndLine: 2, Symbol: "-", Score: 1, Text: "## - — " + s.m.Dir() + "/README.md:1-2 (score 1)\nWidget docs"},
	}
	diffHits(t, "markdown sections", want, got)
}

func trySearch(t *testing.T, cfg, query string) ([]systems.Hit, error) {
	t.Helper()
	s, _ := setup(t, cfg)
	return s.Search(t.Context(), query, 10)
}

func TestMCPCapturesAndBlob(t *testing.T) {
	s, _ := setup(t, `{
	"system": "fakepeer", "env_pass": ["FAKEPEER_PIDFILE"], "config": "docs", "transport": "mcp",
	"mcp": {"command": ["${FAKEPEER}", "mcp", "{corpus}"], "calls": [
		{"tool": "resolve", "arguments": {"name": "{library}"}, "capture": {"id": "re:Library ID: (\\S+)"}},
		{"tool": "docs", "arguments": {"id": "{captured.id}", "topic": "{query}"}}]},
	"result": {"from": "blob", "library": "{captured.id}"}
}`)
	got, err := s.SearchQuery(t.Context(), systems.Query{Text: "broadcasting", Library: "numpy"}, 5)
	require.NoError(t, err)
	// resolve answered "/lib/numpy-docs" in text; docs answered two text
	// items, joined by a newline into one composite hit.
	diffHits(t, "blob", []systems.Hit{{Text: "# Docs of /lib/numpy-docs\nAbout broadcasting: call frobnicate(x).", Library: "/lib/numpy-docs"}}, got)
}

func TestMCPFaults(t *testing.T) {
	const canary = "canary-5d7e90"
	t.Setenv("FAKEPEER_TEST_KEY", canary)
	// A server with a short call timeout for HANG, and one with a long
	// one for faults that take the server a while to produce (a million
	// items): each has its own pid file.
	type peer struct {
		s       *System
		pidfile string
	}
	start := func(timeout string) peer {
		pidfile := filepath.Join(t.TempDir(), "pids")
		t.Setenv("FAKEPEER_PIDFILE", pidfile) // read when the server starts
		s, _ := setup(t, mcpConfig("search", FromStructured, `, "timeout": "`+timeout+`", "max_output_bytes": 1048576`))
		return peer{s, pidfile}
	}
	short, long := start("2s"), start("2m")
	for _, tc := range []struct {
		query   string
		peer    peer
		want    []string
		restart bool // the server is replaced
		reason  string
	}{
		{"HANG", short, []string{"timed out after 2s", "fakepeer: hanging"}, true, "a hung call fails at its timeout and the server is replaced"},
		{"CRASH", long, []string{"crashing on purpose", "exit status 3"}, true, "a crash shows the stderr tail and the exit status"},
		{"GARBAGE", long, []string{"call 0 (search)", "writing garbage"}, true, "a broken protocol stream fails the call"},
		{"OVERSIZE", long, []string{"exceeded the configured maximum line length"}, true, "a million items exceed the frame cap"},
		// The server's stderr line may reach the tail after the tool's answer
		// (two pipes): only the answer is asserted here; the redaction of
		// stderr tails is TestTailRedacts', and the canary check below
		// covers both.
		{"SECRET", long, []string{"the tool reported an error: bad key ***"}, false, "a tool error keeps the server; the secret is redacted"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			s := tc.peer.s
			before := pids(t, tc.peer.pidfile)["server"]
			_, err := s.Search(t.Context(), tc.query, 10)
			require.Error(t, err, tc.reason)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error lacks %q:\n%v", tc.reason, w, err)
				}
			}
			if strings.Contains(err.Error(), canary) {
				t.Errorf("the secret leaked into the error:\n%v", err)
			}
			if tc.restart {
				waitDead(t, "the server that failed "+tc.query, before[len(before)-1])
			}
			got, err := s.Search(t.Context(), "widget", 10)
			require.NoError(t, err, "the call after a fault")
			diffHits(t, "after "+tc.query, wantWidget, got)
			after := pids(t, tc.peer.pidfile)["server"]
			if restarted := len(after) > len(before); restarted != tc.restart {
				t.Errorf("%s: server restarted = %v, want %v", tc.reason, restarted, tc.restart)
			}
		})
	}
}

func TestMCPCloseKillsProcessGroup(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("FAKEPEER_PIDFILE", pidfile)
	s, _ := setup(t, mcpConfig("search", FromStructured, ""))
	got, err := s.Search(t.Context(), "widget SPAWN", 10)
	require.NoError(t, err)
	diffHits(t, "widget SPAWN", wantWidget, got)
	p := pids(t, pidfile)
	require.Len(t, p["server"], 1)
	require.Len(t, p["child"], 1)
	if !alive(p["server"][0]) || !alive(p["child"][0]) {
		t.Fatalf("server and grandchild must run before Close: %v", p)
	}
	require.NoError(t, s.Close())
	waitDead(t, "the MCP server", p["server"][0])
	waitDead(t, "the server's grandchild", p["child"][0])
}

func TestMCPServerThatDoesNotStart(t *testing.T) {
	_, _, err := trySetup(t, strings.Replace(mcpConfig("search", FromStructured, ""), `"mcp", "{corpus}"]`, `"nosuch"]`, 1))
	if err == nil || !strings.Contains(err.Error(), "MCP handshake") || !strings.Contains(err.Error(), `unknown subcommand "nosuch"`) {
		t.Errorf("Index with a server that exits at once: err = %v, want the handshake error and its stderr", err)
	}
}

// TestMCPHandshakeTimeout: a server that never answers the handshake fails
// Index with the limit and the field that sets it, and is killed.
func TestMCPHandshakeTimeout(t *testing.T) {
	cfg := strings.Replace(mcpConfig("search", FromStructured, `, "start_timeout": "1s"`), `"mcp", "{corpus}"]`, `"sleep"]`, 1)
	_, _, err := trySetup(t, cfg)
	if err == nil || !strings.Contains(err.Error(), "no answer within 1s (start_timeout)") || strings.Contains(err.Error(), "still running") {
		t.Errorf("Index with a server that never answers: err = %v, want the start_timeout named and the server not called running", err)
	}
}
