package campaign

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
)

// slowSearch is a system whose every search waits until its context ends.
type slowSearch struct{}

func (slowSearch) Index(context.Context, *corpus.Corpus) error { return nil }
func (slowSearch) Close() error                                { return nil }
func (slowSearch) Search(ctx context.Context, q string, k int) ([]systems.Hit, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestInterruptedCampaignFails: an interrupt (the context cancelled, as
// Ctrl-C does) during the last system's last cell ends the campaign with
// context.Canceled and writes no report, instead of reports of a campaign
// that looks whole (issue 39: more of item 5's kind).
func TestInterruptedCampaignFails(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Cases = filepath.Join(fixture, "cases.jsonl")
	cfg.Repos = filepath.Join(fixture, "manifest.json")
	cfg.CacheDir = t.TempDir()
	cfg.PoolDepth = 3
	cfg.Meta.Generated = "2026-01-01T00:00:00Z"
	cfg.Specs = []systems.Spec{
		bm25Spec(t),
		{System: "stub", Config: "slow", Hash: "test-slow", New: func(systems.Options) (systems.System, error) { return slowSearch{}, nil }},
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var done bool
	cfg.Logf = func(format string, args ...any) {
		if !done && len(args) > 0 && args[0] == "stub/slow" {
			done = true
			time.AfterFunc(300*time.Millisecond, cancel) // once the slow system's cells began
		}
	}
	out := t.TempDir()
	_, err := Run(ctx, cfg, out)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "interrupted")
	_, serr := os.Stat(filepath.Join(out, "run.json"))
	require.True(t, os.IsNotExist(serr), "no run.json of an interrupted campaign")
}
