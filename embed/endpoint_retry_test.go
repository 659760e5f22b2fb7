package embed

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
)

// TestEndpointRetriesReported: every retry is logged (-v) as it happens,
// and Warnings counts those made since its last call, for the cell's
// record (issue 39 item 9: retries were counted nowhere).
func TestEndpointRetriesReported(t *testing.T) {
	t.Setenv("RB_TEST_KEY", secret)
	f := &fakeServer{t: t, fail: func(n int) int { return map[int]int{1: 503, 2: 429}[n] }}
	srv := httptest.NewServer(f)
	defer srv.Close()
	m := endpointModel(srv.URL)
	m.Endpoint.BatchSize = 10
	e, err := NewEndpoint(m, srv.Client())
	require.NoError(t, err)
	var mu sync.Mutex
	var lines []string
	e.Logf = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(format, args...))
	}
	_, err = e.Embed(t.Context(), []string{"x", "y"}, "")
	require.NoError(t, err)
	require.Len(t, lines, 2, "one line per retry: %q", lines)
	require.Contains(t, lines[0], "503 Service Unavailable")
	require.Contains(t, lines[0], "; retry 1 of 2 in ")
	require.Contains(t, lines[1], "429 Too Many Requests")
	require.Contains(t, lines[1], "; retry 2 of 2 in ")
	for _, l := range lines {
		require.NotContains(t, l, secret)
	}
	require.Equal(t, []string{"embed: model served: 2 requests retried (on HTTP 429/5xx or a failed or timed-out request); 0 batches failed after their retries"}, e.Warnings())
	require.Empty(t, e.Warnings(), "counted once: none since the last call")
}

// TestEndpointDeadline: a server that never answers fails a batch within
// the endpoint's deadline over all attempts, naming the deadline, the
// per-request timeout and the retries, instead of Retries+1 full request
// timeouts (issue 39 item 9: 2 min × 6 attempts by default).
func TestEndpointDeadline(t *testing.T) {
	t.Setenv("RB_TEST_KEY", secret)
	f := &fakeServer{t: t, delay: 1500 * time.Millisecond}
	srv := httptest.NewServer(f)
	defer srv.Close()
	m := endpointModel(srv.URL)
	m.Endpoint.BatchSize = 10
	m.Endpoint.Timeout = models.Duration(200 * time.Millisecond)
	m.Endpoint.Retries = 50
	m.Endpoint.Deadline = models.Duration(700 * time.Millisecond)
	e, err := NewEndpoint(m, srv.Client())
	require.NoError(t, err)
	start := time.Now()
	_, err = e.Embed(t.Context(), []string{"x"}, "")
	el := time.Since(start)
	require.Error(t, err)
	require.Less(t, el, 2*time.Second, "bounded by the deadline (700ms), not 51 × 200ms")
	require.ErrorContains(t, err, "no embeddings within 700ms (deadline; timeout 200ms per request, up to 50 retries) after ")
	require.Greater(t, int(f.requests.Load()), 1, "retried within the deadline")
	w := e.Warnings()
	require.Len(t, w, 1)
	require.True(t, strings.HasSuffix(w[0], "1 batches failed after their retries"), w[0])
}

// TestEndpointDefaultDeadline: the defaults bound a hanging server to
// DefaultEndpointDeadline in all, not (1+DefaultEndpointRetries) ×
// DefaultEndpointTimeout = 12 min.
func TestEndpointDefaultDeadline(t *testing.T) {
	require.Less(t, DefaultEndpointDeadline, time.Duration(1+DefaultEndpointRetries)*DefaultEndpointTimeout)
	require.GreaterOrEqual(t, DefaultEndpointDeadline, DefaultEndpointTimeout, "one request may use its whole timeout")
}
