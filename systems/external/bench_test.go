package external

import (
	"fmt"
	"testing"
)

// BenchmarkSearch measures the cost of one query through each transport
// against fakepeer (process start per query for command, one round trip
// for MCP and HTTP), including the result mapping.
func BenchmarkSearch(b *testing.B) {
	for _, tc := range []struct{ name, cfg string }{
		{"transport=command", commandConfig("")},
		{"transport=mcp", mcpConfig("search", FromStructured, "")},
		{"transport=http", `{"system": "fakepeer", "env_pass": ["FAKEPEER_PIDFILE"], "config": "http", "transport": "http",
	"http": {"command": ["${FAKEPEER}", "http", "-addr", "127.0.0.1:{port}", "{corpus}"],
	         "url": "http://127.0.0.1:{port}/search", "body": {"q": "{query}", "k": "{k}"}},
	` + fmt.Sprintf(mapAll, FromJSON) + `}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s, _ := setup(b, tc.cfg)
			for b.Loop() {
				hits, err := s.Search(b.Context(), "widget", 10)
				if err != nil || len(hits) != 2 {
					b.Fatalf("Search = %d hits, %v", len(hits), err)
				}
			}
		})
	}
}
