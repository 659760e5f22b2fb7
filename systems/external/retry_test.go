package external

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/systems"
)

// flaky is a hosted API whose first answers are scripted: "503", "429",
// "429 after=N" (with Retry-After: N), "reset" (the connection closed with
// an RST); after the script, and for ever, the hosted API's answer.
func flaky(t *testing.T, script ...string) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		mu.Lock()
		step := "ok"
		if i < len(script) {
			step = script[i]
		} else if len(script) > 0 && script[len(script)-1] == "503 forever" {
			step = "503"
		}
		mu.Unlock()
		code, after, _ := strings.Cut(step, " after=")
		switch code {
		case "reset":
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.(*net.TCPConn).SetLinger(0)
				c.Close()
			}
			return
		case "503", "503 forever", "429", "500", "404":
			if after != "" {
				w.Header().Set("Retry-After", after)
			}
			var c int
			fmt.Sscan(strings.Fields(code)[0], &c)
			http.Error(w, "busy", c)
			return
		}
		fmt.Fprint(w, `{"data": {"hits": [{"loc": {"path": "pkg/a.py", "start": 3}, "score": 1}]}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// retryConfig is a POST (which net/http itself never retries, so every
// retry is the retrier's) to the flaky API at url.
func retryConfig(url, retry string) string {
	return `{
	"system": "flaky", "config": "api", "transport": "http",
	"http": {"url": "` + url + `/search?q={query}", "body": {"q": "{query}"}},
	"result": {"from": "json", "items": "data.hits", "path": "loc.path", "start_line": "loc.start", "score": "score"},
	"timeout": "5s"` + retry + `
}`
}

// recordWaits replaces the system's retry sleep by one that records the
// waits and returns at once.
func recordWaits(t *testing.T, s *System) *[]time.Duration {
	t.Helper()
	r, ok := s.t.(*lifetime).transport.(*httpTransport).client.Transport.(*retrier)
	require.True(t, ok, "the HTTP client does not retry")
	var waits []time.Duration
	r.sleep = func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}
	return &waits
}

// TestRetryBackoff: 503, 429 with Retry-After, a reset connection and a 500
// are retried with exponential backoff and jitter from a seeded generator
// (the same waits on every run), Retry-After is honoured, and the retries
// are counted in Warnings.
func TestRetryBackoff(t *testing.T) {
	var runs [][]time.Duration
	for range 2 {
		srv, n := flaky(t, "503", "429 after=2", "reset", "500")
		s, _ := setup(t, retryConfig(srv.URL, `, "retry": {"attempts": 5, "initial": "100ms", "max_delay": "10s", "seed": 7}`))
		waits := recordWaits(t, s)
		got, err := s.Search(t.Context(), "a&b", 5)
		require.NoError(t, err)
		diffHits(t, "after the retries", []systems.Hit{{Path: "pkg/a.py", StartLine: 3, Score: 1}}, got)
		if n.Load() != 5 {
			t.Errorf("the server got %d requests, want 5 (four failures, then the answer)", n.Load())
		}
		require.Len(t, *waits, 4)
		w := *waits
		for i, bounds := range [][2]time.Duration{{50 * time.Millisecond, 100 * time.Millisecond}, {2 * time.Second, 2 * time.Second}, {200 * time.Millisecond, 400 * time.Millisecond}, {400 * time.Millisecond, 800 * time.Millisecond}} {
			if w[i] < bounds[0] || w[i] > bounds[1] {
				t.Errorf("wait %d = %s, want in [%s, %s] (initial·2^n, jitter in [0.5, 1); Retry-After 2 s for the second)", i+1, w[i], bounds[0], bounds[1])
			}
		}
		want := []string{"flaky/api: 4 requests retried (3 on HTTP 429/5xx, 1 on a broken connection); 0 failed after 5 attempts (retry.attempts)"}
		require.Equal(t, want, s.Warnings())
		runs = append(runs, w)
	}
	require.Equal(t, runs[0], runs[1], "the seeded jitter gives the same waits on every run")
	t.Logf("waits before retries 1-4: %v", runs[0])
}

// TestRetryGivesUp: retries are bounded; a Retry-After longer than
// max_delay fails the request at once, naming both; a 4xx is not retried.
func TestRetryGivesUp(t *testing.T) {
	for _, tc := range []struct {
		name, want, warning string
		script              []string
		requests            int64
	}{
		{"bounded", "HTTP 503", "2 requests retried (2 on HTTP 429/5xx, 0 on a broken connection); 1 failed after 3 attempts", []string{"503 forever"}, 3},
		{"retry-after too long", "HTTP 429: Retry-After 2m0s exceeds 10s (retry.max_delay)", "0 requests retried (0 on HTTP 429/5xx, 0 on a broken connection); 1 failed", []string{"429 after=120"}, 1},
		{"client error", "HTTP 404", "", []string{"404"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := flaky(t, tc.script...)
			s, _ := setup(t, retryConfig(srv.URL, `, "retry": {"attempts": 3, "initial": "10ms", "max_delay": "10s"}`))
			recordWaits(t, s)
			_, err := s.Search(t.Context(), "q", 5)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
			if n.Load() != tc.requests {
				t.Errorf("%d requests, want %d", n.Load(), tc.requests)
			}
			w := s.Warnings()
			if tc.warning == "" && len(w) != 0 || tc.warning != "" && (len(w) != 1 || !strings.Contains(w[0], tc.warning)) {
				t.Errorf("Warnings = %q, want %q", w, tc.warning)
			}
		})
	}
}

// TestMaxConcurrency: the queries of one config in flight at once, over
// every System of it in the process, are at most max_concurrency.
func TestMaxConcurrency(t *testing.T) {
	var inFlight, most atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := inFlight.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		time.Sleep(100 * time.Millisecond)
		inFlight.Add(-1)
		fmt.Fprint(w, `{"data": {"hits": []}}`)
	}))
	t.Cleanup(srv.Close)
	cfg := strings.Replace(retryConfig(srv.URL, `, "max_concurrency": 2`), `"config": "api"`, `"config": "limited"`, 1)
	var sys []*System
	for range 6 {
		s, _ := setup(t, cfg)
		sys = append(sys, s)
	}
	var wg sync.WaitGroup
	for _, s := range sys {
		wg.Go(func() {
			if _, err := s.Search(t.Context(), "q", 5); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := most.Load(); got != 2 {
		t.Errorf("at most %d requests were in flight, want 2 (max_concurrency)", got)
	}
}

// TestRetryCountsPerTask: each task's warning counts that task's retries,
// not the System's running total (issue 39 item 6: the second of two tasks
// with 2 retries each said "4 requests retried").
func TestRetryCountsPerTask(t *testing.T) {
	srv, _ := flaky(t, "503", "503", "ok", "503", "reset")
	s, _ := setup(t, retryConfig(srv.URL, `, "retry": {"attempts": 5, "initial": "10ms", "max_delay": "10s"}`))
	recordWaits(t, s)
	for i, want := range []string{
		"flaky/api: 2 requests retried (2 on HTTP 429/5xx, 0 on a broken connection); 0 failed after 5 attempts (retry.attempts)",
		"flaky/api: 2 requests retried (1 on HTTP 429/5xx, 1 on a broken connection); 0 failed after 5 attempts (retry.attempts)",
		"",
	} {
		_, err := s.Search(t.Context(), "q", 5)
		require.NoError(t, err)
		w := s.Warnings()
		if want == "" {
			require.Empty(t, w, "task %d had no retry", i+1)
			continue
		}
		require.Equal(t, []string{want}, w, "task %d", i+1)
	}
}
