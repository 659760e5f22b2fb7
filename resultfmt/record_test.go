package resultfmt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
)

func TestRecordsRoundTrip(t *testing.T) {
	recs := []Record{
		{Dataset: "ds", Split: "test", System: "bm25", Config: "code", Task: "q1", Repo: "r", Intent: "symbol_lookup", Query: "find <f> & g",
			FirstRelevant: 2, Values: map[string]float64{"hit@1": 0, "mrr": 0.5}, LatencyMS: 1.5,
			Hits: []Hit{{Rank: 1, DocID: "a", Path: "a.py", Score: 2}, {Rank: 2, DocID: "b", Kind: "function", Path: "b.py", Symbol: "f", Score: 1, Grade: 3, Judged: true},
				{Rank: 3, DocID: "c.py:3-9", Path: "c.py", StartLine: 3, EndLine: 9, Located: true, Unit: "gold:0"}}},
		{Dataset: "ds", Split: "test", System: "bm25", Config: "code", Task: "q2", Query: "boom", Values: map[string]float64{"hit@1": 0, "mrr": 0}, Error: "timeout"},
	}
	dir := t.TempDir()
	file := filepath.Join(dir, RecordsFileName("ds", "test", "bm25", "code"))
	require.NoError(t, WriteRecords(file, recs))
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	if !strings.Contains(string(b), `"query":"find <f> & g"`) {
		t.Errorf("records escape HTML: %s", b)
	}
	got, err := ReadRecords(dir)
	require.NoError(t, err)
	if diff := cmp.Diff(recs, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	// ReadScores: the same records with no hits.
	want := make([]Record, len(recs))
	copy(want, recs)
	for i := range want {
		want[i].Hits = nil
	}
	scores, err := ReadScores(dir)
	require.NoError(t, err)
	if diff := cmp.Diff(want, scores); diff != "" {
		t.Errorf("ReadScores (-want +got):\n%s", diff)
	}
	if len(got[0].Hits) != 3 {
		t.Errorf("ReadScores changed ReadRecords' result: %d hits", len(got[0].Hits))
	}
}

func TestReadRecordsErrors(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "x.jsonl")
	require.NoError(t, os.WriteFile(f, []byte(`{"dataset":"d","system":"s","config":"c","task":"t","query":"q","first_relevant":0,"values":{},"latency_ms":0,"hits":[]}`+"\n"+`{"dataset":"d","sytem":"s"}`+"\n"), 0o644))
	if _, err := ReadRecords(dir); err == nil || !strings.Contains(err.Error(), "x.jsonl:2:") {
		t.Errorf("error = %v, want x.jsonl:2", err)
	}
	_, err := ReadRecords(dir)
	filelinetest.At(t, err, "x.jsonl", 2)
	_, err = ReadScores(dir)
	filelinetest.At(t, err, "x.jsonl", 2)
	if _, err := ReadRecords(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no *.jsonl result files") {
		t.Errorf("empty dir: error = %v", err)
	}
}
