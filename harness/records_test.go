package harness

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

func TestRecords(t *testing.T) {
	res := &Result{Dataset: "ds", Split: "test", System: "bm25", Config: "code",
		Measures: []metrics.Measure{metrics.Hit.At(1), metrics.MRR.At(0)},
		Tasks: []TaskResult{
			{ID: "q1", Meta: datasets.Meta{Repo: "r", Intent: "symbol_lookup", Naming: "none"}, Query: "find f", Values: []float64{0, 0.5},
				FirstRelevant: 2, Latency: 1500 * time.Microsecond,
				Hits: []JudgedHit{{Rank: 1, DocID: "a", Path: "a.py", Score: 2}, {Rank: 2, DocID: "b", Path: "b.py", Symbol: "f", Score: 1, Grade: 3}}},
			{ID: "q2", Query: "boom", Err: "timeout", Values: []float64{0, 0}},
		}}
	recs := res.Records(map[string]string{"b": "function"}, false)
	want := []resultfmt.Record{
		{Dataset: "ds", Split: "test", System: "bm25", Config: "code", Task: "q1", Repo: "r", Intent: "symbol_lookup", Naming: "none", Query: "find f",
			FirstRelevant: 2, Values: map[string]float64{"hit@1": 0, "mrr": 0.5}, LatencyMS: 1.5,
			Hits: []resultfmt.Hit{{Rank: 1, DocID: "a", Path: "a.py", Score: 2}, {Rank: 2, DocID: "b", Kind: "function", Path: "b.py", Symbol: "f", Score: 1, Grade: 3, Judged: true}}},
		{Dataset: "ds", Split: "test", System: "bm25", Config: "code", Task: "q2", Query: "boom", Values: map[string]float64{"hit@1": 0, "mrr": 0}, Error: "timeout"},
	}
	if diff := cmp.Diff(want, recs); diff != "" {
		t.Errorf("records (-want +got):\n%s\nreason: a hit without gold is unjudged unless the qrels are complete", diff)
	}
	if res.Records(nil, true)[0].Hits[0].Judged != true {
		t.Error("judgedAll: every hit of a complete-qrels dataset is judged")
	}
}
