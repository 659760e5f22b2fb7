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
