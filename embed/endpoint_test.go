package embed

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
)

// fakeServer is an OpenAI-compatible /v1/embeddings endpoint whose vector
// of a text is a function of the text: [len, first byte, 1, 0].
type fakeServer struct {
	t        *testing.T
	fail     func(n int) int // status to answer the n-th request (from 1) with; 0: serve it
	delay    time.Duration
	requests atomic.Int32
	inFlight atomic.Int32
	maxIn    atomic.Int32
	mu       sync.Mutex
	inputs   []string
	auth     []string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(f.requests.Add(1))
	in := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxIn.Load()
		if in <= m || f.maxIn.CompareAndSwap(m, in) {
			break
		}
	}
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	f.mu.Lock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	if f.fail != nil {
		if code := f.fail(n); code != 0 {
			w.Header().Set("Retry-After", "0")
			// A careless server echoing the credentials it got.
			http.Error(w, "overloaded; you sent "+r.Header.Get("Authorization"), code)
			return
		}
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "acme/coder" {
		http.Error(w, fmt.Sprintf("bad request: %v, model %q", err, req.Model), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.inputs = append(f.inputs, req.Input...)
	f.mu.Unlock()
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var resp struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
	}
	resp.Object = "list"
	for i := len(req.Input) - 1; i >= 0; i-- { // out of order: the index decides
		s := req.Input[i]
		first := float32(0)
		if s != "" {
			first = float32(s[0])
		}
		resp.Data = append(resp.Data, item{"embedding", i, []float32{float32(len(s)), first, 1, 0}})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

func endpointModel(url string) models.Model {
	return models.Model{
		ID: "served", Kind: models.KindEndpoint, Dimension: 4, Licence: "test", QueryPrefix: "q: ",
		Endpoint: &models.Endpoint{BaseURL: url + "/v1", Model: "acme/coder", Revision: "r1", KeyEnv: "RB_TEST_KEY",
			BatchSize: 2, Concurrency: 2, Retries: 2, Backoff: models.Duration(time.Millisecond)},
	}
}

const secret = "sk-test-0123456789"

func TestEndpoint(t *testing.T) {
	t.Setenv("RB_TEST_KEY", secret)
	f := &fakeServer{t: t, delay: 20 * time.Millisecond}
	srv := httptest.NewServer(f)
	defer srv.Close()
	m := endpointModel(srv.URL)
	require.NoError(t, models.CheckUser(m))
	e, err := NewEndpoint(m, srv.Client())
	require.NoError(t, err)

	texts := []string{"a", "bb", "ccc", "dddd", "eeeee", "ffffff", "g", "hh", "iii"}
	vecs, err := e.EmbedQueries(t.Context(), texts)
	require.NoError(t, err)
	for i, v := range vecs {
		want := []float32{float32(3 + len(texts[i])), 'q', 1, 0}
		normalize(want)
		require.Equal(t, want, v, "text %d: the server's vector for the prefixed text, normalised, in order", i)
	}
	require.Equal(t, int32(5), f.requests.Load(), "9 texts in batches of 2")
	require.Equal(t, int32(2), f.maxIn.Load(), "at most Concurrency requests in flight, and that many used")
	for _, a := range f.auth {
		require.Equal(t, "Bearer "+secret, a)
	}
	require.Len(t, f.inputs, 9)
	require.Contains(t, f.inputs, "q: ccc")
	require.NotContains(t, e.Fingerprint(), secret)

	// The fingerprint keys on the served model, not on where it is served.
	other := endpointModel("http://elsewhere:9")
	require.Equal(t, EndpointFingerprint(m), EndpointFingerprint(other))
	other.Endpoint.Revision = "r2"
	require.NotEqual(t, EndpointFingerprint(m), EndpointFingerprint(other), "another revision is another model")
	other = endpointModel(srv.URL)
	other.QueryPrefix = "query: "
	require.NotEqual(t, EndpointFingerprint(m), EndpointFingerprint(other), "prompts key the vectors")
}

func TestEndpointFailures(t *testing.T) {
	t.Setenv("RB_TEST_KEY", secret)
	for _, tc := range []struct {
		name         string
		fail         func(n int) int
		delay        time.Duration
		timeout      time.Duration
		dim          int
		wantErr      string
		wantRequests int32
		wantRetries  int
		reason       string
	}{
		{name: "retry-then-ok", fail: func(n int) int { return map[int]int{1: 429, 2: 503}[n] },
			wantRequests: 3, wantRetries: 2, reason: "429 and 5xx are retried with backoff"},
		{name: "give-up", fail: func(int) int { return 500 }, wantErr: "gave up after 3 attempts",
			wantRequests: 3, wantRetries: 2, reason: "Retries further attempts, then the last error"},
		{name: "client-error", fail: func(int) int { return 400 }, wantErr: "400 Bad Request",
			wantRequests: 1, reason: "a 4xx other than 429 is not retried"},
		{name: "timeout", delay: 300 * time.Millisecond, timeout: 50 * time.Millisecond, wantErr: "deadline exceeded",
			wantRequests: 3, wantRetries: 2, reason: "a request that outlives its timeout is abandoned and retried"},
		{name: "dimension", dim: 8, wantErr: "answered a vector of 4, the model declares dimension 8",
			wantRequests: 1, reason: "vectors are checked against the declared dimension"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeServer{t: t, fail: tc.fail, delay: tc.delay}
			srv := httptest.NewServer(f)
			defer srv.Close()
			m := endpointModel(srv.URL)
			m.Endpoint.BatchSize = 10
			m.Endpoint.Timeout = models.Duration(tc.timeout)
			if tc.dim > 0 {
				m.Dimension = tc.dim
			}
			e, err := NewEndpoint(m, srv.Client())
			require.NoError(t, err)
			_, err = e.Embed(t.Context(), []string{"x", "y"}, "")
			if tc.wantErr == "" {
				require.NoError(t, err, tc.reason)
			} else {
				require.ErrorContains(t, err, tc.wantErr, tc.reason)
				require.NotContains(t, err.Error(), secret, "the key never reaches an error")
			}
			require.Equal(t, tc.wantRequests, f.requests.Load(), tc.reason)
			require.Equal(t, tc.wantRetries, e.Stats().Retries)
		})
	}

	// No key in the environment: refused before any request.
	t.Setenv("RB_TEST_KEY", "")
	_, err := NewEndpoint(endpointModel("http://127.0.0.1:9"), nil)
	require.ErrorContains(t, err, "$RB_TEST_KEY is empty")
}

func TestEndpointModelValidation(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		edit       func(*models.Model)
	}{
		{"key-in-key-env", "must name an environment variable", func(m *models.Model) { m.Endpoint.KeyEnv = "sk-abc 123" }},
		{"credentials-in-url", "no credentials in the URL", func(m *models.Model) { m.Endpoint.BaseURL = "https://u:p@host/v1" }},
		{"no-revision", "revision are required", func(m *models.Model) { m.Endpoint.Revision = "" }},
		{"files", "no files", func(m *models.Model) { m.Files = []models.File{{Name: "model.onnx"}} }},
		{"pooling", "the server's business", func(m *models.Model) { m.Pooling = "mean" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := endpointModel("http://host:1")
			tc.edit(&m)
			err := models.CheckUser(m)
			require.ErrorContains(t, err, tc.want)
			require.False(t, strings.Contains(err.Error(), "sk-abc"), "a mistaken key is not echoed")
		})
	}
}
