package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
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
	sel, err := selectMeasures([]string{"all_trec", "mrr@10", "hit", "pass@1-needle", "coverage"}, false)
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

// BenchmarkEvalFiles is the command of the side-by-side with trec_eval
// (docs/performance.md): "eval -c -m map -m ndcg_cut.10" on the 10,000 ×
// 1,000 synthetic run, as written (grouped by query) and with its lines in
// a seeded random order (shuffled), end to end from the files.
func BenchmarkEvalFiles(b *testing.B) {
	cfg := synth.DefaultConfig()
	dir := b.TempDir()
	qrels, run, err := synth.WriteFiles(dir, cfg)
	if err != nil {
		b.Fatal(err)
	}
	shuffled := filepath.Join(dir, "run-shuffled.txt")
	if err := shuffleFile(run, shuffled, 7); err != nil {
		b.Fatal(err)
	}
	sel, err := selectMeasures([]string{"map", "ndcg_cut.10"}, false)
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []struct{ name, run string }{{"grouped", run}, {"shuffled", shuffled}} {
		b.Run("run="+v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, _, err := evalFiles(qrels, v.run, sel.measures, metrics.EvalOptions{Complete: true})
				if err != nil {
					b.Fatal(err)
				}
				if res.NumQ != cfg.Queries || res.NumRet != cfg.Queries*cfg.Retrieved {
					b.Fatalf("evaluated %d queries, %d results", res.NumQ, res.NumRet)
				}
			}
			b.ReportMetric(float64(cfg.Queries*cfg.Retrieved)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// shuffleFile writes the lines of src in a seeded random order to dst.
func shuffleFile(src, dst string, seed uint64) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return os.WriteFile(dst, bytes.Join(lines, nil), 0o644)
}
