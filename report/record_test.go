package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/metrics"
)

func TestFromHarnessRoundTrip(t *testing.T) {
	res := &harness.Result{Dataset: "ds", Split: "test", System: "bm25", Config: "code",
		Measures: []metrics.Measure{{Name: metrics.Hit, K: 1}, {Name: metrics.MRR}},
		Tasks: []harness.TaskResult{
			{ID: "q1", Meta: datasets.Meta{Repo: "r", Intent: "symbol_lookup"}, Query: "find f", Values: []float64{0, 0.5},
				FirstRelevant: 2, Latency: 1500 * time.Microsecond,
				Hits: []harness.JudgedHit{{Rank: 1, DocID: "a", Path: "a.py", Score: 2}, {Rank: 2, DocID: "b", Path: "b.py", Symbol: "f", Score: 1, Grade: 3}}},
			{ID: "q2", Query: "boom", Err: "timeout", Values: []float64{0, 0}},
		}}
	recs := FromHarness(res, map[string]string{"b": "function"}, false)
	want := []Record{
		{Dataset: "ds", Split: "test", System: "bm25", Config: "code", Task: "q1", Repo: "r", Intent: "symbol_lookup", Query: "find f",
			FirstRelevant: 2, Values: map[string]float64{"hit@1": 0, "mrr": 0.5}, LatencyMS: 1.5,
			Hits: []Hit{{Rank: 1, DocID: "a", Path: "a.py", Score: 2}, {Rank: 2, DocID: "b", Kind: "function", Path: "b.py", Symbol: "f", Score: 1, Grade: 3, Judged: true}}},
		{Dataset: "ds", Split: "test", System: "bm25", Config: "code", Task: "q2", Query: "boom", Values: map[string]float64{"hit@1": 0, "mrr": 0}, Error: "timeout"},
	}
	if diff := cmp.Diff(want, recs); diff != "" {
		t.Errorf("records (-want +got):\n%s\nreason: a hit without gold is unjudged unless the qrels are complete", diff)
	}
	if FromHarness(res, nil, true)[0].Hits[0].Judged != true {
		t.Error("judgedAll: every hit of a complete-qrels dataset is judged")
	}
	dir := t.TempDir()
	require.NoError(t, WriteRecords(filepath.Join(dir, RecordsFileName("ds", "test", "bm25", "code")), recs))
	got, err := ReadRecords(dir)
	require.NoError(t, err)
	if diff := cmp.Diff(recs, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestReadRecordsErrors(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "x.jsonl")
	require.NoError(t, os.WriteFile(f, []byte(`{"dataset":"d","system":"s","config":"c","task":"t","query":"q","first_relevant":0,"values":{},"latency_ms":0,"hits":[]}`+"\n"+`{"dataset":"d","sytem":"s"}`+"\n"), 0o644))
	if _, err := ReadRecords(dir); err == nil || !strings.Contains(err.Error(), "x.jsonl:2:") {
		t.Errorf("error = %v, want x.jsonl:2", err)
	}
	if _, err := ReadRecords(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no *.jsonl result files") {
		t.Errorf("empty dir: error = %v", err)
	}
}

func TestSumFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cases.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("abc"), 0o644))
	got, err := SumFile("cases", p)
	require.NoError(t, err)
	// sha256("abc"), FIPS 180-2 appendix B.1.
	want := FileSum{Role: "cases", Path: filepath.ToSlash(p), SHA256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SumFile (-want +got):\n%s", diff)
	}
	if _, err := SumFile("cases", filepath.Join(dir, "absent")); err == nil {
		t.Error("SumFile of a missing file: no error")
	}
}
