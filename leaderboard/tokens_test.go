package leaderboard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// tokenRecords: four systems over 20 tasks, each with constant values, so
// the means are known: (tokens@10, ndcg@10, ndcg_tok@2000, covered_tok@2000).
func tokenRecords() []resultfmt.Record {
	systems := []struct {
		model                     string
		tokens, ndcg, ntok, cover float64
		composite                 bool
	}{
		{"bm25/porter", 5000, 0.65, 0.30, 0.40, false}, // best nDCG, costly
		{"dense/bge", 2000, 0.64, 0.55, 0.60, false},   // near as good, cheap: front
		{"dense/mini", 2500, 0.50, 0.45, 0.50, false},  // dominated by dense/bge
		{"peer/blob", 1500, 0, 0.50, 0.50, true},       // composite: no ndcg@10
	}
	var recs []resultfmt.Record
	for _, s := range systems {
		sys, cfg, _ := strings.Cut(s.model, "/")
		for i := range 20 {
			v := map[string]float64{"tokens@10": s.tokens, "ndcg_tok@2000": s.ntok, "covered_tok@2000": s.cover, "hit@1": 1}
			if !s.composite {
				v["ndcg@10"] = s.ndcg
			}
			recs = append(recs, resultfmt.Record{Dataset: "d", Split: "small", System: sys, Config: cfg, Task: fmt.Sprintf("t%02d", i), Values: v})
		}
	}
	return recs
}

func TestTokenRows(t *testing.T) {
	b, err := Build(tokenRecords(), nil, DefaultConfig())
	require.NoError(t, err)
	d := b.Datasets[0]
	require.Equal(t, []string{"hit@1", "ndcg@10", "tokens@10", "covered_tok@2000", "ndcg_tok@2000"}, d.Measures, "token measures after the rank measures")
	var got []string
	for _, r := range d.TokenRows() {
		got = append(got, strings.Join(TokenCells(r), " | "))
	}
	want := []string{
		"1 | bm25/porter | 5000 | 0.6500 | ★ | 4 | 0.3000 | 0.4000",
		"2 | dense/bge | 2000 | 0.6400 | ★ | 1 | 0.5500 | 0.6000",
		"3 | dense/mini | 2500 | 0.5000 |  | 3 | 0.4500 | 0.5000",
		"4 | peer/blob | 1500 | — |  | 2 | 0.5000 | 0.5000",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("token table (-want +got):\n%s", diff)
	}
	md := b.DatasetMarkdown(d)
	require.Contains(t, md, "## Quality against tokens")
	require.Contains(t, md, "| 5000 [5000, 5000] |", "tokens@10 in whole tokens on the board")
	require.Contains(t, string(b.HTML(nil)), "<table class=\"tokens\">")
}

func TestNoTokenTableWithoutTokens(t *testing.T) {
	recs, cells := fixtureBoard()
	b, err := Build(recs, cells, DefaultConfig())
	require.NoError(t, err)
	require.Empty(t, b.Datasets[0].TokenRows())
	require.NotContains(t, b.DatasetMarkdown(b.Datasets[0]), "Quality against tokens")
}
