package context7api

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external"
)

// TestRealMCPServerHTTPMatchesStdio runs the two peer configs of the real
// @upstash/context7-mcp — peers/context7.json over stdio and
// peers/context7-http.json over Streamable HTTP on a loopback port — against
// this API and checks that every query gets the same hits (text and
// library) both ways, and that the HTTP run really went over HTTP (the
// server reports its transport to the API).
func TestRealMCPServerHTTPMatchesStdio(t *testing.T) {
	bin := filepath.Join(testenv.CacheDir(), "peers", "context7", "node_modules", "@upstash", "context7-mcp", "dist", "index.js")
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, peersKind, bin+" not installed; run `make peers`")
		return
	}
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, peersKind, "node not on PATH")
		return
	}
	s, err := New(testLibs(), Options{MaxDocs: 2})
	if err != nil {
		t.Fatal(err)
	}
	base, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	t.Setenv("CONTEXT7_API_URL", base)

	queries := []systems.Query{
		{Text: "scale features to unit variance", Library: "Sklearn"},
		{Text: "sort by the values", Library: "pandas"},
		{Text: "replace values where the condition is False", Library: "pandas"},
		{Text: "test element-wise for NaN", Library: "numpy"},
		{Text: "100% of rows & columns #1", Library: "pandas"},
	}
	run := func(file string) ([][]systems.Hit, []string) {
		t.Helper()
		cfg, err := external.Load(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		sys, err := external.New(cfg, systems.Options{CacheDir: testenv.CacheDir(), NoCache: true, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		defer sys.Close()
		from := len(s.Requests())
		if err := sys.Index(t.Context(), &corpus.Corpus{ID: "docs"}); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var out [][]systems.Hit
		for _, q := range queries {
			hits, err := sys.SearchQuery(t.Context(), q, 10)
			if err != nil {
				t.Fatalf("%s: %q: %v", file, q.Text, err)
			}
			out = append(out, hits)
		}
		var transports []string
		for _, r := range s.Requests()[from:] {
			transports = append(transports, r.Headers["X-Context7-Transport"])
		}
		return out, transports
	}
	stdio, viaStdio := run("context7.json")
	http, viaHTTP := run("context7-http.json")
	if diff := cmp.Diff(stdio, http); diff != "" {
		t.Errorf("hits over stdio and over Streamable HTTP differ (-stdio +http):\n%s", diff)
	}
	for i, hits := range stdio {
		if len(hits) != 1 || hits[0].Library == "" || !strings.Contains(hits[0].Text, "###") && len(hits[0].Text) < 20 {
			t.Errorf("query %q: %d hits %+v, want one composite blob with its library", queries[i].Text, len(hits), hits)
		}
	}
	want := func(n int, tr string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = tr
		}
		return out
	}
	// Two API requests per query (search, context) each way.
	if diff := cmp.Diff(want(2*len(queries), "stdio"), viaStdio); diff != "" {
		t.Errorf("transports the stdio run reported to the API (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want(2*len(queries), "http"), viaHTTP); diff != "" {
		t.Errorf("transports the HTTP run reported to the API (-want +got):\n%s", diff)
	}
	t.Logf("%d queries: identical hits over stdio and Streamable HTTP; first: library %s, %d bytes", len(queries), stdio[0][0].Library, len(stdio[0][0].Text))
}
