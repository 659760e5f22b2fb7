package main

import (
	"testing"

	"github.com/retrievalbench/retrievalbench/internal/synth"
	"github.com/retrievalbench/retrievalbench/metrics"
)

// BenchmarkEval evaluates the synthetic run of synth.DefaultConfig (10,000
// queries × 1,000 results, 50 judged documents per query, grades 0–3) end
// to end from the files: reading qrels and run and computing every measure
// of -m all_trec plus this tool's own measures.
func BenchmarkEval(b *testing.B) {
	cfg := synth.DefaultConfig()
	qrels, run, err := synth.WriteFiles(b.TempDir(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	sel, err := selectMeasures([]string{"all_trec", "mrr@10", "hit", "pass@1-needle", "coverage"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, _, err := evalFiles(qrels, run, sel.measures, metrics.EvalOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if res.NumQ != cfg.Queries || res.NumRet != cfg.Queries*cfg.Retrieved {
			b.Fatalf("evaluated %d queries, %d results", res.NumQ, res.NumRet)
		}
	}
	b.ReportMetric(float64(cfg.Queries*cfg.Retrieved)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
