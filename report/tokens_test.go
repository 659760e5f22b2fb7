package report

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// TestRescoreTokenMeasures: rescoring a record recomputes the token
// measures from the tokens its hits carry, so a campaign's decision rules
// can gain on quality at a token budget; a record counted by no tokenizer
// leaves them undefined rather than free.
func TestRescoreTokenMeasures(t *testing.T) {
	hits := []resultfmt.Hit{
		{Rank: 2, DocID: "g", Unit: "g", Grade: 1, Tokens: 800},
		{Rank: 1, DocID: "n", Unit: "n", Tokens: 600},
	}
	recs := []resultfmt.Record{
		{System: "s", Config: "c", Task: "t", Hits: hits},
		{System: "s", Config: "u", Task: "t", Hits: []resultfmt.Hit{{Rank: 1, DocID: "g", Unit: "g", Grade: 1}}},
	}
	q := metrics.Qrels{"t": {"g": 1}}
	ms := []metrics.Measure{metrics.CoveredTok.At(1000), metrics.TokensAt.At(10)}
	require.NoError(t, Rescore(recs, q, ms))
	require.InDelta(t, 0.5, recs[0].Values["covered_tok@1000"], 1e-12, "n (600) whole, then g cut: 400 of its 800 tokens")
	require.Equal(t, 1400.0, recs[0].Values["tokens@10"])
	require.True(t, math.IsNaN(recs[1].Values["covered_tok@1000"]), "no tokens counted: undefined, got %v", recs[1].Values["covered_tok@1000"])
}
