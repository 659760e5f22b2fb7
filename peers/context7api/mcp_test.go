package context7api

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// peersKind is the RETRIEVALBENCH_REQUIRE kind of the installed peers.
const peersKind = "peers"

// idLine is how the real server prints a search result's id
// (dist/lib/utils.js formatSearchResult): the only place it appears.
var idLine = regexp.MustCompile(`(?m)^- Context7-compatible library ID: (\S+)$`)

// TestRealMCPServerDrivesAPI runs the real @upstash/context7-mcp (installed
// by `make peers`) over MCP stdio against this server: resolve-library-id,
// then query-docs with the id it printed, and checks what went over HTTP.
func TestRealMCPServerDrivesAPI(t *testing.T) {
	bin := filepath.Join(testenv.CacheDir(), "peers", "context7", "node_modules", "@upstash", "context7-mcp", "dist", "index.js")
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, peersKind, bin+" not installed; run `make peers`")
		return
	}
	node, err := exec.LookPath("node")
	if err != nil {
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

	cmd := exec.CommandContext(t.Context(), node, bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CONTEXT7_API_URL=" + base, "OTEL_SDK_DISABLED=true"}
	client := mcp.NewClient(&mcp.Implementation{Name: "retrievalbench", Version: "test"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", bin, err)
	}
	t.Cleanup(func() { cs.Close() })

	text := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: error=%v, %d contents: %+v", name, res.IsError, len(res.Content), res.Content)
		}
		tc, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s: content is %T, want text", name, res.Content[0])
		}
		return tc.Text
	}

	resolved := text("resolve-library-id", map[string]any{"query": "scale features to unit variance", "libraryName": "Sklearn"})
	m := idLine.FindAllStringSubmatch(resolved, -1)
	if len(m) != 1 || m[0][1] != "/scikit-learn/scikit-learn" {
		t.Fatalf("resolve-library-id text names ids %v, want exactly /scikit-learn/scikit-learn:\n%s", m, resolved)
	}
	docs := text("query-docs", map[string]any{"libraryId": m[0][1], "query": "scale features to unit variance"})
	if !strings.Contains(docs, "Standardize features by removing the mean") {
		t.Errorf("query-docs text lacks the doc's text:\n%s", docs)
	}
	want, _ := s.Context("/scikit-learn/scikit-learn", "scale features to unit variance")
	if docs != want {
		t.Errorf("query-docs did not pass the API text through whole (-api +mcp):\n%s", cmp.Diff(want, docs))
	}
	missing := text("query-docs", map[string]any{"libraryId": "/no/such", "query": "x"})
	if !strings.Contains(missing, `library "/no/such" not found`) {
		t.Errorf("query-docs on an unknown library: %q, want our 404 message passed through", missing)
	}

	reqs := s.Requests()
	var got []string
	for _, r := range reqs {
		got = append(got, r.Path+" "+strings.Join(sortedKeys(r.Query), ","))
		if r.Headers["X-Context7-Source"] != "mcp-server" || r.Headers["X-Context7-Server-Version"] != "4.1.1" || r.Headers["X-Context7-Transport"] != "stdio" {
			t.Errorf("%s: headers %v, want X-Context7-Source mcp-server, -Server-Version 4.1.1, -Transport stdio", r.Path, r.Headers)
		}
		if r.Headers["Authorization"] != "" {
			t.Errorf("%s: Authorization sent without CONTEXT7_API_KEY", r.Path)
		}
	}
	wantReqs := []string{"/v2/libs/search libraryName,query", "/v2/context libraryId,query", "/v2/context libraryId,query"}
	if diff := cmp.Diff(wantReqs, got); diff != "" {
		t.Errorf("requests the real server made (-want +got):\n%s", diff)
	}
	if q := reqs[0].Query; q["libraryName"] != "Sklearn" || q["query"] != "scale features to unit variance" {
		t.Errorf("search parameters %v", q)
	}
	t.Logf("request headers of the real server: %v", reqs[0].Headers)
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
