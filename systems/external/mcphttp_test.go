package external

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/systems"
)

// mcpHTTPConfig is mcpConfig's server over HTTP: fakepeer mcphttp started
// on {port}, Streamable HTTP at /mcp or HTTP+SSE at /sse.
func mcpHTTPConfig(sse bool) string {
	flag, path, transport := "", "/mcp", MCPStreamable
	if sse {
		flag, path, transport = `"-sse", `, "/sse", MCPSSE
	}
	return `{
	"system": "fakepeer", "env_pass": ["FAKEPEER_PIDFILE"], "config": "mcp-` + transport + `",
	"transport": "mcp",
	"mcp": {"command": ["${FAKEPEER}", "mcphttp", ` + flag + `"-addr", "127.0.0.1:{port}", "{corpus}"],
	        "url": "http://127.0.0.1:{port}` + path + `", "http_transport": "` + transport + `",
	        "ready_url": "http://127.0.0.1:{port}/ready",
	        "calls": [{"tool": "search", "arguments": {"query": "{query}", "limit": "{k}"}}]},
	` + fmt.Sprintf(mapAll, FromStructured) + `
}`
}

// TestMCPOverHTTPSameHits: the same MCP server (the official Go SDK) over
// stdio, Streamable HTTP and HTTP+SSE gives the same hits, worked out by
// hand; Close stops the HTTP servers.
func TestMCPOverHTTPSameHits(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("FAKEPEER_PIDFILE", pidfile)
	for _, tc := range []struct{ name, cfg string }{
		{"stdio", mcpConfig("search", FromStructured, "")},
		{"streamable", mcpHTTPConfig(false)},
		{"sse", mcpHTTPConfig(true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := setup(t, tc.cfg)
			for _, q := range []struct {
				query string
				want  []systems.Hit
			}{{"widget", wantWidget}, {"frobnicate", wantFrob}} {
				got, err := s.Search(t.Context(), q.query, 10)
				require.NoError(t, err, q.query)
				diffHits(t, tc.name+" "+q.query, q.want, got)
			}
			require.NoError(t, s.Close())
		})
	}
	for _, pid := range pids(t, pidfile)["server"] {
		waitDead(t, "an MCP server after Close", pid)
	}
}

// TestMCPOverHTTPHosted: a hosted MCP server (the Go SDK's Streamable HTTP
// handler on 127.0.0.1) that wants a bearer token gets it from the
// environment through mcp.headers; a wrong token fails Index with the
// server's answer, the token redacted.
func TestMCPOverHTTPHosted(t *testing.T) {
	const token = "canary-mcp-8a1f"
	server := mcp.NewServer(&mcp.Implementation{Name: "hosted", Version: "1"}, nil)
	type in struct {
		Topic string `json:"topic"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "docs"}, func(_ context.Context, req *mcp.CallToolRequest, x in) (*mcp.CallToolResult, any, error) {
		if x.Topic == "WHOAMI" { // a server that echoes the key it was sent
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you are " + req.Extra.Header.Get("Authorization")}}}, nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "About " + x.Topic + ": frobnicate."}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+token {
			http.Error(w, "unauthorized: got "+got, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := func(env string) string {
		return `{
	"system": "hosted", "config": "mcp", "transport": "mcp",
	"secrets": ["` + env + `"],
	"mcp": {"url": "` + srv.URL + `/mcp", "headers": {"Authorization": "Bearer ${` + env + `}"},
	        "calls": [{"tool": "docs", "arguments": {"topic": "{query}"}}]},
	"result": {"from": "blob"}, "start_timeout": "10s"
}`
	}
	t.Setenv("MCP_TOKEN", token)
	s, _ := setup(t, cfg("MCP_TOKEN"))
	got, err := s.Search(t.Context(), "a%b&c", 5)
	require.NoError(t, err)
	diffHits(t, "hosted", []systems.Hit{{Text: "About a%b&c: frobnicate."}}, got)
	got, err = s.Search(t.Context(), "WHOAMI", 5)
	require.NoError(t, err)
	diffHits(t, "the header's secret echoed back", []systems.Hit{{Text: "you are Bearer ***"}}, got)

	t.Setenv("MCP_TOKEN_WRONG", token+"-wrong")
	_, _, err = trySetup(t, cfg("MCP_TOKEN_WRONG"))
	if err == nil || !strings.Contains(err.Error(), "MCP handshake with "+srv.URL) || strings.Contains(err.Error(), token) {
		t.Errorf("Index with a wrong token: err = %v, want the handshake error with the token redacted", err)
	}
	t.Logf("wrong token: %v", err)
}

// TestMCPOverHTTPRetries: an MCP server over HTTP that answers 503 to its
// first requests is retried (the handshake and a call succeed), and the
// retries are counted in Warnings.
func TestMCPOverHTTPRetries(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "busy", Version: "1"}, nil)
	type in struct {
		Topic string `json:"topic"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "docs"}, func(_ context.Context, _ *mcp.CallToolRequest, x in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "About " + x.Topic}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if i := n.Add(1); i == 1 || i == 4 { // the initialize request, and a later one
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s, _ := setup(t, `{
	"system": "busy", "config": "mcp", "transport": "mcp",
	"mcp": {"url": "`+srv.URL+`/mcp", "calls": [{"tool": "docs", "arguments": {"topic": "{query}"}}]},
	"result": {"from": "blob"}, "retry": {"attempts": 3, "initial": "10ms"}
}`)
	for _, q := range []string{"one", "two"} {
		got, err := s.Search(t.Context(), q, 5)
		require.NoError(t, err)
		diffHits(t, q, []systems.Hit{{Text: "About " + q}}, got)
	}
	require.Equal(t, []string{"busy/mcp: 2 requests retried (2 on HTTP 429/5xx, 0 on a broken connection); 0 failed after 3 attempts (retry.attempts)"}, s.Warnings())
}
