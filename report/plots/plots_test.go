package plots

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"

	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

func summary(t *testing.T) *report.Summary {
	t.Helper()
	var recs []resultfmt.Record
	for _, m := range []string{"bm25/x", "dense/a"} {
		sys, cfg, _ := strings.Cut(m, "/")
		for i := range 6 {
			v := float64(i % 2)
			if sys == "dense" {
				v = 1
			}
			recs = append(recs, resultfmt.Record{Dataset: "d", System: sys, Config: cfg, Task: fmt.Sprintf("c%d", i), Repo: "r",
				Values: map[string]float64{"ndcg@10": v, "mrr@10": v, "recall@5": v}, LatencyMS: float64(i + 1)})
		}
	}
	cfg := report.DefaultConfig()
	cfg.Only = []string{"mrr@10", "ndcg@10", "recall@5"}
	s, err := report.Summarize(report.Input{Records: recs}, cfg)
	require.NoError(t, err)
	return s
}

func TestWriteByteIdentical(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		require.NoError(t, Write(dir, summary(t)))
	}
	files := summary(t).PlotFiles()
	if len(files) != 5 { // score bars of the three default gate measures, timing, pareto
		t.Fatalf("PlotFiles = %v, want 5 figures", files)
	}
	for _, base := range files {
		for _, ext := range []string{".svg", ".png"} {
			f := base + ext
			a, err := os.ReadFile(filepath.Join(dirs[0], f))
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(dirs[1], f))
			require.NoError(t, err)
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s: %d bytes, equal across runs %v; want the same non-empty file", f, len(a), bytes.Equal(a, b))
			}
		}
	}
}

func TestWriteRefusesMixedDatasets(t *testing.T) {
	s := summary(t)
	s.Systems[0].Dataset = "other"
	if err := Write(t.TempDir(), s); err == nil || !strings.Contains(err.Error(), "never drawn together") {
		t.Errorf("plot error = %v", err)
	}
}

func TestFront(t *testing.T) {
	pts := plotter.XYs{
		{X: 1, Y: 0.5},  // fastest: on the front
		{X: 2, Y: 0.4},  // slower and worse than the first
		{X: 5, Y: 0.7},  // better than every faster one: on the front
		{X: 5, Y: 0.6},  // as fast as the third, worse
		{X: 9, Y: 0.7},  // as good as the third, slower
		{X: 20, Y: 0.9}, // best: on the front
	}
	if diff := cmp.Diff([]bool{true, false, true, false, false, true}, front(pts)); diff != "" {
		t.Errorf("front (-want +got):\n%s", diff)
	}
}

func TestStylesByFamily(t *testing.T) {
	st := styles([]string{"bm25/code", "dense/a", "bm25/porter", "codira/lexical", "dense/b"})
	if st["bm25/code"].colour != st["bm25/porter"].colour || st["dense/a"].colour != st["dense/b"].colour {
		t.Error("the systems of one family differ in colour")
	}
	if st["bm25/code"].colour == st["dense/a"].colour || st["dense/a"].colour == st["codira/lexical"].colour {
		t.Error("two families share a colour")
	}
	if st["bm25/code"].shape == st["bm25/porter"].shape {
		t.Error("two configs of one family share a shape")
	}
}

// TestWriteZeroLatency: a p50 of 0 ms (answers from a cache) is drawn at
// the floor of the log-scale axes instead of failing the figure.
func TestWriteZeroLatency(t *testing.T) {
	s := summary(t)
	for i := range s.Systems {
		s.Systems[i].LatencyP50MS, s.Systems[i].LatencyP95MS = 0, 0
	}
	dir := t.TempDir()
	require.NoError(t, Write(dir, s))
	for _, f := range []string{"timing.png", "pareto.svg"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		require.NotZero(t, fi.Size(), f)
	}
}
