package dense

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/systems"
)

// TestEndpointRetriesReported: retries reach the -v log and the cell's warnings: a dense
// system over an endpoint that answers 503 once logs the retry through
// Options.Logf and reports it once through systems.WarningsOf (issue 39
// item 9: retries were counted nowhere).
func TestEndpointRetriesReported(t *testing.T) {
	srv := &keywordServer{}
	var n atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	defer ts.Close()
	m := models.Model{ID: "served-keywords", Kind: models.KindEndpoint, Dimension: len(keywords) + 1, Licence: "test",
		Endpoint: &models.Endpoint{BaseURL: ts.URL + "/v1", Model: "keywords", Revision: "1", BatchSize: 10, Concurrency: 1,
			Backoff: models.Duration(1)}}
	var mu sync.Mutex
	var logged []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(format, args...))
	}
	x, err := New(ForModel(m), systems.Options{CacheDir: t.TempDir(), Logf: logf})
	require.NoError(t, err)
	defer x.Close()
	require.NoError(t, x.Index(t.Context(), testCorpus()))
	retries := 0
	for _, l := range logged {
		if strings.Contains(l, "503 Service Unavailable") && strings.Contains(l, "; retry 1 of 5 in ") {
			retries++
		}
	}
	require.Equal(t, 1, retries, "the retry in the -v log: %q", logged)
	require.Equal(t, []string{"embed: model served-keywords: 1 requests retried (on HTTP 429/5xx or a failed or timed-out request); 0 batches failed after their retries"}, systems.WarningsOf(x))
	require.Empty(t, systems.WarningsOf(x), "reported once")
}
