package dense

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/systems"
)

// TestIndexReportColdBuild: an Index that embeds the whole corpus records
// its build time with the store; a later Index of the same corpus that
// takes every vector from the store reports it reused, with that recorded
// build time and CPU class (its cold cost) — not its own near-zero time; a
// store without a record (resumed after an interruption) reports the build
// unknown (0). NoCache neither reads nor records.
func TestIndexReportColdBuild(t *testing.T) {
	srv := &keywordServer{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	m := models.Model{ID: "served-keywords", Kind: models.KindEndpoint, Dimension: len(keywords) + 1, Licence: "test",
		Endpoint: &models.Endpoint{BaseURL: ts.URL + "/v1", Model: "keywords", Revision: "1", BatchSize: 2, Concurrency: 2}}
	cfg := ForModel(m)
	root := t.TempDir()
	index := func(opt systems.Options) systems.IndexReport {
		t.Helper()
		x, err := New(cfg, opt)
		require.NoError(t, err)
		defer x.Close()
		require.NoError(t, x.Index(t.Context(), testCorpus()))
		return systems.IndexReportOf(x)
	}
	cold := index(systems.Options{CacheDir: root})
	require.False(t, cold.Reused)
	require.Positive(t, cold.BuildTime)
	warm := index(systems.Options{CacheDir: root})
	if !warm.Reused || warm.BuildTime.Round(time.Microsecond) != cold.BuildTime.Round(time.Microsecond) || warm.CPUClass != cold.CPUClass {
		t.Errorf("warm index reports %+v, want reused with the cold build %+v", warm, cold)
	}
	if got := index(systems.Options{CacheDir: root, NoCache: true}); got.Reused {
		t.Errorf("NoCache index reports %+v, want built now", got)
	}
	if got := index(systems.Options{CacheDir: t.TempDir(), NoCache: true}); got.Reused || got.BuildTime != 0 {
		t.Errorf("NoCache without a store: %+v, want nothing reported (no store, no record)", got)
	}
}
