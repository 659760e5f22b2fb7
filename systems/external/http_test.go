package external

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/systems"
)

// hosted is an in-process stand-in for a hosted search API: it wants a
// bearer token and answers in its own shape, with numbers as strings.
func hosted(t *testing.T, token string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+token {
			http.Error(w, "unauthorized: got "+got, http.StatusUnauthorized)
			return
		}
		var in struct {
			Q string `json:"q"`
			K int    `json:"k"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&in) != nil {
			http.Error(w, "want a POST with a JSON body", http.StatusBadRequest)
			return
		}
		switch in.Q {
		case "HANG":
			<-r.Context().Done()
			return
		case "OVERSIZE":
			fmt.Fprint(w, `{"data": {"hits": [`)
			for i := range 1_000_000 {
				if _, err := fmt.Fprintf(w, `{"loc": {"path": "f%d.py"}},`, i); err != nil {
					return // the client stopped reading at its cap
				}
			}
			fmt.Fprint(w, `{}]}}`)
			return
		case "FAIL":
			http.Error(w, "internal trouble", http.StatusInternalServerError)
			return
		}
		hits := []string{
			`{"loc": {"path": "pkg/b.py", "start": "1", "end": 2}, "sym": "Widget", "score": "3.5", "body": "class Widget:"}`,
			`{"loc": {"path": "README.md", "start": 1}, "score": 1}`,
			`{"loc": {"path": "pkg/a.py"}, "score": 0.5}`,
		}
		fmt.Fprintf(w, `{"lib": %q, "data": {"hits": [%s]}}`, r.URL.Query().Get("lib"), strings.Join(hits[:min(in.K, len(hits))], ","))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func hostedConfig(url, extra string) string {
	return `{
	"system": "hosted", "config": "api", "transport": "http",
	"secrets": ["HOSTED_TOKEN"],
	"http": {"method": "POST", "url": "` + url + `/search?lib={library}",
	         "headers": {"Authorization": "Bearer ${HOSTED_TOKEN}"},
	         "body": {"q": "{query}", "k": "{k}"}},
	"result": {"from": "json", "items": "data.hits", "path": "loc.path", "start_line": "loc.start",
	           "end_line": "loc.end", "symbol": "sym", "score": "score", "text": "body"}` + extra + `
}`
}

func TestHTTPHosted(t *testing.T) {
	const token = "canary-tok-3141"
	t.Setenv("HOSTED_TOKEN", token)
	srv := hosted(t, token)
	s, _ := setup(t, hostedConfig(srv.URL, `, "timeout": "2s", "max_output_bytes": 1048576`))
	got, err := s.SearchQuery(t.Context(), systems.Query{Text: "widget", Library: "numpy"}, 2)
	require.NoError(t, err)
	diffHits(t, "widget k=2", []systems.Hit{
		{Path: "pkg/b.py", StartLine: 1, EndLine: 2, Symbol: "Widget", Score: 3.5, Text: "class Widget:"},
		{Path: "README.md", StartLine: 1, Score: 1},
	}, got)
	for _, tc := range []struct {
		query, want, reason string
	}{
		{"HANG", "timed out after 2s", "a request that never answers fails at the call's timeout"},
		{"OVERSIZE", "body exceeds 1048576 bytes", "the body is capped"},
		{"FAIL", "HTTP 500: internal trouble", "a non-2xx status is an error with the body"},
	} {
		_, err := s.Search(t.Context(), tc.query, 10)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.reason, err, tc.want)
		}
	}
	got, err = s.Search(t.Context(), "widget", 1)
	require.NoError(t, err, "a call after the faults")
	if len(got) != 1 || got[0].Path != "pkg/b.py" {
		t.Errorf("after the faults: hits %+v, want pkg/b.py", got)
	}
}

func TestHTTPSecretRedacted(t *testing.T) {
	const token = "canary-tok-2718"
	t.Setenv("HOSTED_TOKEN", token)
	srv := hosted(t, "the-right-token")
	// The server echoes the wrong token it got into its 401 body.
	s, _ := setup(t, hostedConfig(srv.URL, ""))
	_, err := s.Search(t.Context(), "widget", 5)
	require.Error(t, err)
	if strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "HTTP 401: unauthorized: got Bearer ***") {
		t.Errorf("err = %v, want the 401 with the token redacted", err)
	}
}

func TestHTTPLocalServer(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("FAKEPEER_PIDFILE", pidfile)
	s, _ := setup(t, `{
	"system": "fakepeer", "config": "http", "transport": "http",
	"http": {"command": ["${FAKEPEER}", "http", "-addr", "127.0.0.1:{port}", "{corpus}"],
	         "url": "http://127.0.0.1:{port}/search", "body": {"q": "{query}", "k": "{k}"}},
	`+fmt.Sprintf(mapAll, FromJSON)+`
}`)
	got, err := s.Search(t.Context(), "widget", 10)
	require.NoError(t, err)
	diffHits(t, "widget", wantWidget, got)
	server := pids(t, pidfile)["server"]
	require.Len(t, server, 1)
	require.NoError(t, s.Close())
	waitDead(t, "the HTTP server", server[0])
}
