package report

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// TestPoolLocationOfAChunk: a built-in system's chunk and an external
// system's location that the harness resolved to the same lines are one
// pooled result — listed once, under the chunk's id, ranked by both — and
// the one grade a person gives it reaches both systems' hits. A location
// of other lines stays a result of its own; a sheet made before, grading
// the location's id too, is read as the chunk's grade (the chunk's own
// grade winning).
func TestPoolLocationOfAChunk(t *testing.T) {
	run := &campaignfmt.Campaign{Tasks: []campaignfmt.Task{task("t1", "r", "symbol_lookup")}}
	chunk := resultfmt.Hit{Rank: 1, DocID: "a.py#Parser.parse", Kind: "function", Path: "a.py", Symbol: "Parser.parse", StartLine: 10, EndLine: 24, TextSHA: "0123456789abcdef"}
	other := resultfmt.Hit{Rank: 2, DocID: "b.py#g", Kind: "function", Path: "b.py", Symbol: "g", StartLine: 1, EndLine: 3, TextSHA: "fedcba9876543210"}
	atChunk := resultfmt.Hit{Rank: 1, DocID: "a.py:10-24", Path: "a.py", StartLine: 10, EndLine: 24, Located: true}
	elsewhere := resultfmt.Hit{Rank: 2, DocID: "a.py:30-31", Path: "a.py", StartLine: 30, EndLine: 31, Located: true}
	recs := func() []resultfmt.Record {
		return []resultfmt.Record{
			{Dataset: "d", System: "bm25", Config: "x", Task: "t1", Repo: "r", Intent: "symbol_lookup", Hits: []resultfmt.Hit{chunk, other}},
			{Dataset: "d", System: "peer", Config: "cmd", Task: "t1", Repo: "r", Intent: "symbol_lookup", Hits: []resultfmt.Hit{atChunk, elsewhere}},
		}
	}
	rs := recs()
	_, err := Judge(run, rs, nil)
	require.NoError(t, err)
	pool := Pool(run, rs, 10)
	var ids []string
	for _, e := range pool {
		ids = append(ids, e.DocID+" "+rankedBy(e.RankedBy))
	}
	require.Equal(t, []string{"a.py#Parser.parse bm25/x@1;peer/cmd@1", "a.py:30-31 peer/cmd@2", "b.py#g bm25/x@2"}, ids)
	require.Equal(t, "0123456789abcdef", pool[0].HitSHA, "the entry is bound to the chunk's text")
	require.Equal(t, "Parser.parse", pool[0].Symbol)

	// Pooled at depth 1, where only the peer's location is in the pool:
	// the row still shows the chunk as its own hit shows it, and binds to
	// its text, so that a grade of it is not stale against Bind.
	low := recs()
	low[0].Hits = []resultfmt.Hit{other, chunk}
	low[0].Hits[0].Rank, low[0].Hits[1].Rank = 1, 2
	_, err = Judge(run, low, nil)
	require.NoError(t, err)
	shallow := Pool(run, low, 1)
	require.Equal(t, "a.py#Parser.parse", shallow[0].DocID)
	require.Equal(t, "peer/cmd@1", rankedBy(shallow[0].RankedBy))
	require.Equal(t, [3]string{"a.py", "Parser.parse", "0123456789abcdef"}, [3]string{shallow[0].Path, shallow[0].Symbol, shallow[0].HitSHA})
	kept, stale, _ := Bind(run, low, []Judgment{{Task: "t1", DocID: shallow[0].DocID, Grade: 2, HitSHA: shallow[0].HitSHA, Source: "s:2"}})
	require.Empty(t, stale)
	require.Len(t, kept, 1)

	gradeOf := func(human []Judgment) map[string][2]int { // model → (grade, judged) of its first hit
		t.Helper()
		rs := recs()
		kept, stale, _ := Bind(run, rs, human)
		require.Empty(t, stale)
		_, err := Judge(run, rs, kept)
		require.NoError(t, err)
		out := map[string][2]int{}
		for _, r := range rs {
			j := 0
			if r.Hits[0].Judged {
				j = 1
			}
			out[r.Model()] = [2]int{r.Hits[0].Grade, j}
		}
		return out
	}
	require.Equal(t, map[string][2]int{"bm25/x": {2, 1}, "peer/cmd": {2, 1}},
		gradeOf([]Judgment{{Task: "t1", DocID: "a.py#Parser.parse", Grade: 2, HitSHA: "0123456789abcdef", Source: "s:2"}}),
		"one grade of the chunk: both systems' hits of its lines are judged with it")
	require.Equal(t, map[string][2]int{"bm25/x": {1, 1}, "peer/cmd": {1, 1}},
		gradeOf([]Judgment{{Task: "t1", DocID: "a.py:10-24", Grade: 3, Source: "old:2"}, {Task: "t1", DocID: "a.py#Parser.parse", Grade: 1, Source: "old:3"}}),
		"an older sheet that graded both: the chunk's own grade")
	require.Equal(t, map[string][2]int{"bm25/x": {3, 1}, "peer/cmd": {3, 1}},
		gradeOf([]Judgment{{Task: "t1", DocID: "a.py:10-24", Grade: 3, Source: "old:2"}}),
		"an older sheet that graded only the location: the chunk takes it")
}
