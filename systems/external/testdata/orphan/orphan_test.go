// Package orphan is a stand-in for a benchmark that is killed: its one
// test starts fakepeer ($FAKEPEER) as an MCP server with a grandchild, an
// HTTP server with a worker and a setsid'd worker, and a command-line
// search that hangs, writes
// $ORPHAN_READY, then waits to be ended — by a signal, or by its own
// -test.timeout panic. Package external's TestNoChildOutlivesTheBench
// builds it with go test -c, ends it each way and checks by pid that none
// of those processes survives.
package orphan

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external"
)

const mapping = `"result": {"from": "json", "items": "results", "path": "file", "start_line": "lines.start",
	"end_line": "lines.end", "symbol": "name", "score": "score", "text": "snippet"}`

var configs = []string{`{
	"system": "orphan", "env_pass": ["FAKEPEER_PIDFILE"], "config": "mcp", "transport": "mcp",
	"mcp": {"command": ["${FAKEPEER}", "mcp", "{corpus}"],
	        "calls": [{"tool": "search", "arguments": {"query": "{query}", "limit": "{k}"}}]},
	` + strings.Replace(mapping, `"json"`, `"structured"`, 1) + `}`, `{
	"system": "orphan", "env_pass": ["FAKEPEER_PIDFILE"], "config": "http", "transport": "http",
	"http": {"command": ["${FAKEPEER}", "http", "-addr", "127.0.0.1:{port}", "{corpus}"],
	         "url": "http://127.0.0.1:{port}/search", "body": {"q": "{query}", "k": "{k}"}},
	` + mapping + `}`, `{
	"system": "orphan", "env_pass": ["FAKEPEER_PIDFILE"], "config": "cmd", "transport": "command",
	"command": {"search": ["${FAKEPEER}", "search", "{corpus}", "{query}"]},
	"timeout": "1h",
	` + mapping + `}`,
}

func TestHold(t *testing.T) {
	if os.Getenv("FAKEPEER") == "" || os.Getenv("ORPHAN_READY") == "" {
		t.Skip("run by package external's TestNoChildOutlivesTheBench")
	}
	c := &corpus.Corpus{ID: "orphan", Docs: []corpus.Doc{{ID: "a.py", Path: "a.py", Kind: "file", Text: "def widget():\n    pass\n"}}}
	ctx := context.Background() // not t.Context(): nothing here may end them but the kill
	var sys []*external.System
	for _, text := range configs {
		cfg, err := external.Parse("orphan.json", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		s, err := external.New(cfg, systems.Options{CacheDir: os.Getenv("ORPHAN_CACHE"), Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Index(ctx, c); err != nil {
			t.Fatal(err)
		}
		sys = append(sys, s)
	}
	// A grandchild in the MCP server's group, a worker holding the HTTP
	// server's stderr and one in a session of its own (setsid), and a
	// search command that never returns.
	if _, err := sys[0].Search(ctx, "SPAWN widget", 5); err != nil {
		t.Fatal(err)
	}
	if _, err := sys[1].Search(ctx, "WORKER SETSID widget", 5); err != nil {
		t.Fatal(err)
	}
	go sys[2].Search(ctx, "HANG", 5)
	time.Sleep(500 * time.Millisecond) // the hanging search has started
	if err := os.WriteFile(os.Getenv("ORPHAN_READY"), []byte("ready\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Hour) // until killed, or -test.timeout panics
}
