package embed

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// TestSessionsSameVectors checks that running batches on several
// single-threaded sessions (the default at batch size 1) gives the vectors,
// bit for bit, of one session with every thread (the default before it):
// the stores and golden files hold vectors of the latter. Texts: the parity
// texts (code in eight languages, prose, long inputs cut at max tokens) and
// the sanity pairs' code.
func TestSessionsSameVectors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "parity", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	// Every parity file holds the same texts: the first one is enough.
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	var pf parityFile
	require.NoError(t, json.Unmarshal(data, &pf), files[0])
	var texts []string
	for _, c := range pf.Cases {
		texts = append(texts, c.Text)
	}
	for _, p := range sanityPairs {
		texts = append(texts, p.gold, p.unrelated)
	}
	require.NotEmpty(t, texts)
	cache := mustHaveRuntime(t)
	for _, m := range manifest(t) {
		t.Run(m.ID, func(t *testing.T) {
			if testing.Short() && m.ID != "minilm-l6-q" {
				t.Skip("-short: minilm-l6-q only")
			}
			if err := models.Verify(cache, m); err != nil {
				if errors.Is(err, models.ErrMissing) {
					testenv.Missing(t, testenv.Models, err.Error())
				}
				t.Fatal(err)
			}
			embedWith := func(sessions, threads int) ([][]float32, int) {
				cfg := DefaultConfig(m, cache)
				cfg.BatchSize = 1
				cfg.Sessions, cfg.Threads = sessions, threads
				e, err := New(cfg)
				require.NoError(t, err)
				defer e.Close()
				vs, err := e.Embed(t.Context(), texts, "")
				require.NoError(t, err)
				return vs, e.Sessions()
			}
			want, _ := embedWith(1, 2)
			got, n := embedWith(0, 2)
			require.Equal(t, 2, n, "sessions picked at batch size 1 with 2 threads")
			for i := range want {
				for j := range want[i] {
					if math.Float32bits(want[i][j]) != math.Float32bits(got[i][j]) {
						t.Fatalf("text %d, component %d: %v with one 2-thread session, %v with two 1-thread sessions", i, j, want[i][j], got[i][j])
					}
				}
			}
		})
	}
}

// BenchmarkEmbedSessions embeds the parity texts with minilm-l6-q at batch
// size 1, on one session with every thread (the default before sessions)
// and on the default sessions (one single-threaded session per thread),
// reporting texts/s.
//
//	go test ./embed -run '^$' -bench EmbedSessions
func BenchmarkEmbedSessions(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "parity", "minilm-l6-q.json"))
	require.NoError(b, err)
	var pf parityFile
	require.NoError(b, json.Unmarshal(data, &pf))
	var texts []string
	for _, c := range pf.Cases {
		texts = append(texts, c.Text)
	}
	m, err := models.Lookup("minilm-l6-q")
	require.NoError(b, err)
	cache := mustHaveRuntime(b)
	if err := models.Verify(cache, m); err != nil {
		if errors.Is(err, models.ErrMissing) {
			testenv.Missing(b, testenv.Models, err.Error())
		}
		b.Fatal(err)
	}
	for _, sessions := range []int{1, 0} {
		name := "sessions=one"
		if sessions == 0 {
			name = "sessions=per-thread"
		}
		b.Run(name, func(b *testing.B) {
			cfg := DefaultConfig(m, cache)
			cfg.Sessions = sessions
			e, err := New(cfg)
			require.NoError(b, err)
			defer e.Close()
			for b.Loop() {
				if _, err := e.Embed(b.Context(), texts, ""); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "texts/s")
		})
	}
}
