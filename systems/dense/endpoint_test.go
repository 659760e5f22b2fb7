package dense

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/systems"
)

// keywordServer is an OpenAI-compatible embeddings endpoint whose vectors
// count a few keywords, so the test corpus's queries find their docs; from
// its failFrom-th request on (when set) it answers 400.
type keywordServer struct {
	requests, texts atomic.Int32
	failFrom        int32
}

var keywords = [][]string{{"reverse", "[::-1]"}, {"http", "url", "fetch"}, {"prime"}, {"dir", "makedirs"}, {"connect", "postgres", "database"}}

func (k *keywordServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := k.requests.Add(1)
	if k.failFrom > 0 && n >= k.failFrom {
		http.Error(w, "model unloaded", http.StatusBadRequest)
		return
	}
	var req struct{ Input []string }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	k.texts.Add(int32(len(req.Input)))
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var out struct {
		Data []item `json:"data"`
	}
	for i, s := range req.Input {
		v := make([]float32, len(keywords)+1)
		v[len(keywords)] = 0.1
		for j, words := range keywords {
			for _, w := range words {
				if containsFold(s, w) {
					v[j]++
				}
			}
		}
		out.Data = append(out.Data, item{i, v})
	}
	json.NewEncoder(w).Encode(out)
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		match := true
		for j := 0; j < len(sub); j++ {
			a, b := s[i+j], sub[j]
			if 'A' <= a && a <= 'Z' {
				a += 'a' - 'A'
			}
			if a != b {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// TestEndpointIndex runs a dense system on an OpenAI-compatible server: the
// vectors go through the same store, keyed by served model and revision,
// so a rerun sends no request and an interrupted run resumes where it
// stopped.
func TestEndpointIndex(t *testing.T) {
	defer func(old int) { storeEvery = old }(storeEvery)
	storeEvery = 2
	srv := &keywordServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	m := models.Model{ID: "served-keywords", Kind: models.KindEndpoint, Dimension: len(keywords) + 1, Licence: "test",
		Endpoint: &models.Endpoint{BaseURL: ts.URL + "/v1", Model: "keywords", Revision: "1", BatchSize: 2, Concurrency: 2}}
	cfg := ForModel(m)
	require.NoError(t, cfg.Validate())
	s := cfg.Spec()
	root := t.TempDir()
	require.Nil(t, s.Missing(root), "a served model needs nothing local")

	// Interrupted: the server breaks at its 2nd request (the second group of 2).
	srv.failFrom = 2
	x, err := New(cfg, systems.Options{CacheDir: root})
	require.NoError(t, err)
	c := testCorpus()
	require.ErrorContains(t, x.Index(t.Context(), c), "model unloaded")
	require.NoError(t, x.Close())

	// Resumed: only the docs not stored before are sent.
	srv.failFrom, srv.texts = 0, atomic.Int32{}
	y, err := New(cfg, systems.Options{CacheDir: root})
	require.NoError(t, err)
	defer y.Close()
	require.NoError(t, y.Index(t.Context(), c))
	st := y.Stats()
	require.Equal(t, 2, st.Reused, "the first group of 2 was stored before the failure")
	require.Equal(t, 3, st.Embedded)
	require.Equal(t, int32(3), srv.texts.Load())
	for i, q := range testQueries {
		hits, err := y.Search(t.Context(), q.query, 1)
		require.NoError(t, err)
		require.Equal(t, q.gold, hits[0].DocID, "query %d %q", i, q.query)
	}

	// A rerun costs nothing but the queries.
	before := srv.requests.Load()
	z, err := New(cfg, systems.Options{CacheDir: root})
	require.NoError(t, err)
	defer z.Close()
	require.NoError(t, z.Index(t.Context(), c))
	require.Equal(t, 5, z.Stats().Reused)
	require.Equal(t, before, srv.requests.Load(), "no request for stored vectors")

	// Another revision is another model: nothing reused, another hash.
	m2 := m
	ep := *m.Endpoint
	ep.Revision = "2"
	m2.Endpoint = &ep
	require.NotEqual(t, cfg.Hash(), ForModel(m2).Hash())
	w, err := New(ForModel(m2), systems.Options{CacheDir: root})
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.Index(t.Context(), c))
	require.Equal(t, 0, w.Stats().Reused)
	require.Equal(t, map[string]string{"endpoint served-keywords": "keywords@2"}, w.Versions())
	// The leaderboard's description: a server's model, its parameters unknown.
	require.Equal(t, []systems.ModelInfo{{ID: "served-keywords", Source: models.SourceEndpoint, Dimension: len(keywords) + 1,
		Engine: systems.EngineServer, Served: "keywords@2", Fingerprint: "endpoint-keywords@2"}}, w.Models())
}
