package plots

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// TestWriteParetoTokens: a summary with tokens@10 gets a quality-vs-tokens
// figure whose legend marks the front: the cheap, equally good system is
// on it, the costly, worse one is not.
func TestWriteParetoTokens(t *testing.T) {
	var recs []resultfmt.Record
	for _, m := range []struct {
		name         string
		tokens, ndcg float64
	}{{"bm25/costly", 6000, 0.4}, {"dense/cheap", 2000, 0.6}} {
		sys, cfg, _ := strings.Cut(m.name, "/")
		for i := range 6 {
			recs = append(recs, resultfmt.Record{Dataset: "d", System: sys, Config: cfg, Task: fmt.Sprintf("c%d", i), Repo: "r",
				Values: map[string]float64{"ndcg@10": m.ndcg, "mrr@10": m.ndcg, "recall@5": m.ndcg, "tokens@10": m.tokens}, LatencyMS: 1})
		}
	}
	cfg := report.DefaultConfig()
	cfg.Only = []string{"mrr@10", "ndcg@10", "recall@5", "tokens@10"}
	s, err := report.Summarize(report.Input{Records: recs}, cfg)
	require.NoError(t, err)
	require.Contains(t, s.PlotFiles(), "pareto-tokens")
	dir := t.TempDir()
	require.NoError(t, Write(dir, s))
	svg, err := os.ReadFile(filepath.Join(dir, "pareto-tokens.svg"))
	require.NoError(t, err)
	require.True(t, bytes.Contains(svg, []byte("dense/cheap (front)")), "the cheaper, better system is on the front")
	require.False(t, bytes.Contains(svg, []byte("bm25/costly (front)")), "the costlier, worse one is not")
	require.NotContains(t, summary(t).PlotFiles(), "pareto-tokens", "no tokens, no figure")
}
