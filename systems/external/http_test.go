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
	"system": "fakepeer", "env_pass": ["FAKEPEER_PIDFILE"], "config": "http", "transport": "http",
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

// localConfig is fakepeer's HTTP server started by http.command, with
// $FAKEPEER_TEST_KEY as its secret API_KEY.
func localConfig(extra string) string {
	return `{
	"system": "fakepeer", "env_pass": ["FAKEPEER_PIDFILE"], "config": "http",
	"env": {"API_KEY": "${FAKEPEER_TEST_KEY:-none}"},
	"secrets": ["API_KEY"],
	"transport": "http",
	"http": {"command": ["${FAKEPEER}", "http", "-addr", "127.0.0.1:{port}", "{corpus}"],
	         "url": "http://127.0.0.1:{port}/search", "body": {"q": "{query}", "k": "{k}"}},
	` + fmt.Sprintf(mapAll, FromJSON) + extra + `
}`
}

// TestHTTPLocalFaults is TestMCPFaults for a local HTTP server
// (http.command): a server that dies before answering or halfway through
// its body, answers garbage or half a JSON document, hangs, answers a
// million items or an error holding the secret. Each fault fails its own
// query with a message naming the problem; a server that died or hung is
// replaced for the next query, the others keep serving; the package's
// TestMain fails if any server is left running.
func TestHTTPLocalFaults(t *testing.T) {
	const canary = "canary-47b1e2"
	t.Setenv("FAKEPEER_TEST_KEY", canary)
	type peer struct {
		s       *System
		pidfile string
	}
	start := func(timeout string) peer {
		pidfile := filepath.Join(t.TempDir(), "pids")
		t.Setenv("FAKEPEER_PIDFILE", pidfile) // read when the server starts
		s, _ := setup(t, localConfig(`, "timeout": "`+timeout+`", "max_output_bytes": 1048576`))
		return peer{s, pidfile}
	}
	short, long := start("2s"), start("2m")
	// The tail of an error holds what stderr received during its query
	// only, never the start-up line or an earlier query's output. A line the
	// server writes while answering may reach it after the answer (stderr
	// and the socket are two channels), so the query's own lines are
	// asserted only where the server exited or hung first.
	const tail = "stderr (last 4096 bytes):\n"
	const earlier = "fakepeer http starting"
	for _, tc := range []struct {
		query   string
		peer    peer
		want    []string
		restart bool // the server is replaced
		reason  string
	}{
		{"CRASH", long, []string{"POST http://127.0.0.1:", "server exit status 3", tail + "fakepeer: crashing on purpose"}, true,
			"a server that dies before answering fails the call with its exit status and stderr tail, and is replaced"},
		{"widget HALFCRASH", long, []string{"reading the body: unexpected EOF", "server exit status 3", tail + "fakepeer: dying mid-answer"}, true,
			"a server that dies halfway through its body fails the call with its exit status and stderr tail, and is replaced"},
		{"GARBAGE", long, []string{`mapping the result: result is not JSON`, `(starts "this is not JSON <<<")`}, false,
			"a body that is not JSON fails the query with its start; the server keeps serving"},
		{"widget TRUNCATED", long, []string{"mapping the result: result is not JSON: unexpected EOF", `(starts "{\"results\":[{\"file\":`}, false,
			"half a JSON document fails the query; the server keeps serving"},
		{"HANG", short, []string{"timed out after 2s (timeout)", "server killed after the failed call", tail + "fakepeer: hanging"}, true,
			"a hung server fails the call at its timeout and is replaced (and is not called still running)"},
		{"OVERSIZE", long, []string{"body exceeds 1048576 bytes (max_output_bytes)"}, false,
			"a million items hit the body cap; the server keeps serving"},
		{"SECRET", long, []string{"HTTP 500: bad key ***"}, false,
			"an error status keeps the server; the secret is redacted from the body and the tail"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			s := tc.peer.s
			before := pids(t, tc.peer.pidfile)["server"]
			_, err := s.Search(t.Context(), tc.query, 10)
			require.Error(t, err, tc.reason)
			t.Logf("%s: %v", tc.query, err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error lacks %q:\n%v", tc.reason, w, err)
				}
			}
			if strings.Contains(err.Error(), canary) {
				t.Errorf("the secret leaked into the error:\n%v", err)
			}
			if strings.Contains(err.Error(), earlier) {
				t.Errorf("the error holds stderr written before its query:\n%v", err)
			}
			if tc.restart && strings.Contains(err.Error(), "still running") {
				t.Errorf("the error calls a server that is being replaced still running:\n%v", err)
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
	// Every server either side started is stopped by Close.
	for _, p := range []peer{short, long} {
		all := pids(t, p.pidfile)["server"]
		require.NoError(t, p.s.Close())
		for _, pid := range all {
			waitDead(t, "an HTTP server after Close", pid)
		}
	}
}

// TestHTTPCrashWithWorker: a local server that crashes while a worker
// process it started holds its stderr (as a Python web server's workers
// do) is reported as exited and replaced at once, so the next query
// succeeds; Close then kills the worker with its process group. (The
// transport once took a server for dead only when exec.Cmd.Wait returned,
// which also waits, up to WaitDelay, for the stderr pipe the worker holds:
// the crash read "server still running" and every query in those 2 s
// failed with "connection refused".)
func TestHTTPCrashWithWorker(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("FAKEPEER_PIDFILE", pidfile)
	s, _ := setup(t, localConfig(`, "timeout": "20s"`))
	_, err := s.Search(t.Context(), "WORKER CRASH", 10)
	// Its status is known once Wait returns; before that, that it exited.
	if err == nil || !strings.Contains(err.Error(), "server exit") || strings.Contains(err.Error(), "still running") {
		t.Errorf("err = %v, want the crashed server reported as exited, not running", err)
	}
	got, err := s.Search(t.Context(), "widget", 10)
	require.NoError(t, err, "the query after the crash: the server must have been replaced")
	diffHits(t, "after the crash", wantWidget, got)
	p := pids(t, pidfile)
	require.Len(t, p["server"], 2, "the crashed server and its replacement")
	require.Len(t, p["child"], 1)
	require.NoError(t, s.Close())
	waitDead(t, "the crashed server's worker", p["child"][0])
	waitDead(t, "the replacement server", p["server"][1])
}

// TestHTTPReadyURL: with http.ready_url, Index waits for a 2xx answer
// there, not for the port to accept connections; a server that never
// gives one fails Index at start_timeout, naming the limit, the field and
// its last answer, and is killed.
func TestHTTPReadyURL(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("FAKEPEER_PIDFILE", pidfile)
	// fakepeer's HTTP server answers a GET without a JSON body with 400.
	_, _, err := trySetup(t, strings.Replace(localConfig(`, "start_timeout": "1s"`),
		`"url": "http://127.0.0.1:{port}/search"`, `"ready_url": "http://127.0.0.1:{port}/health", "url": "http://127.0.0.1:{port}/search"`, 1))
	want := "(http.command) did not answer GET http://127.0.0.1:"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "/health with 2xx within 1s (start_timeout) (last answer: HTTP 400)") {
		t.Fatalf("Index err = %v, want %q … within 1s (start_timeout) (last answer: HTTP 400)", err, want)
	}
	for _, pid := range pids(t, pidfile)["server"] {
		waitDead(t, "a server that never became ready", pid)
	}
}
