package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// TestPerNaming: records of go test that say whether each query names its
// target (RepoQA's doc tasks) get a per-naming table — each group's n and
// mean, "unknown" for a task no record says of — in the JSON, the
// markdown and per-naming-summary.csv; records that never say get none.
func TestPerNaming(t *testing.T) {
	records := func(naming func(i int) string) []resultfmt.Record {
		var recs []resultfmt.Record
		for i := range 12 {
			v := 0.2
			if naming(i) == "exact" {
				v = 0.9 // the query names it: easy
			}
			recs = append(recs, resultfmt.Record{Dataset: "repoqa-go-doc", Split: "small", System: "bm25", Config: "code", Task: fmt.Sprintf("t%02d", i),
				Repo: "r", Intent: "doc", Naming: naming(i), Values: map[string]float64{"ndcg@10": v}})
		}
		return recs
	}
	cfg := DefaultConfig()
	cfg.Only, cfg.Rules.Primary, cfg.Rules.Gains = []string{"ndcg@10"}, "ndcg@10", nil
	s, err := Summarize(Input{Records: records(func(i int) string {
		switch {
		case i < 6:
			return "exact"
		case i < 11:
			return "none"
		}
		return ""
	})}, cfg)
	require.NoError(t, err)
	got := map[string]string{}
	for _, r := range s.PerNaming {
		got[r.Group] = fmt.Sprintf("n=%d %.4f", r.N, float64(r.Values["ndcg@10"]))
	}
	require.Equal(t, map[string]string{"exact": "n=6 0.9000", "none": "n=5 0.2000", "unknown": "n=1 0.2000"}, got)
	require.Contains(t, s.Markdown(), "## Per naming (does the query name its target")
	dir := t.TempDir()
	require.NoError(t, Write(dir, s))
	b, err := os.ReadFile(filepath.Join(dir, NamingFile))
	require.NoError(t, err)
	require.Equal(t, "model,naming,n,failed,ndcg@10\nbm25/code,exact,6,0,0.9000\nbm25/code,none,5,0,0.2000\nbm25/code,unknown,1,0,0.2000\n", string(b))

	s, err = Summarize(Input{Records: records(func(int) string { return "" })}, cfg)
	require.NoError(t, err)
	require.Empty(t, s.PerNaming)
	require.False(t, strings.Contains(s.Markdown(), "Per naming"), "no naming table when no record says")
	dir = t.TempDir()
	require.NoError(t, Write(dir, s))
	_, err = os.Stat(filepath.Join(dir, NamingFile))
	require.True(t, os.IsNotExist(err), "no %s when no record says: %v", NamingFile, err)
}
