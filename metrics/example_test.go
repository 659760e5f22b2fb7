package metrics_test

import (
	"fmt"

	"github.com/retrievalbench/retrievalbench/metrics"
)

func ExampleScore() {
	results := []metrics.Result{{DocID: "doc3", Score: 0.2}, {DocID: "doc1", Score: 0.9}, {DocID: "doc7", Score: 0.9}, {DocID: "doc2", Score: 0.5}}
	metrics.SortRun(results) // score descending, ties by doc id descending: doc7, doc1, doc2, doc3
	ranked := make([]string, len(results))
	for i, r := range results {
		ranked[i] = r.DocID
	}
	qrels := map[string]int{"doc1": 2, "doc2": 1, "doc9": 3}
	var ms []metrics.Measure
	for _, s := range []string{"hit@1", "mrr", "P@5", "recall@10", "ndcg@10", "map"} {
		m, _ := metrics.ParseMeasure(s)
		ms = append(ms, m)
	}
	values, err := metrics.Score(ranked, qrels, ms, metrics.Options{})
	if err != nil {
		panic(err)
	}
	for i, m := range ms {
		fmt.Printf("%-10s %-12s %.4f\n", m, m.TrecName(), values[i])
	}
	// DCG@10 = 2/log2(3) + 1/log2(4); the ideal ranks doc9 (3), doc1 (2), doc2 (1).
	// Output:
	// hit@1      success_1    0.0000
	// mrr        recip_rank   0.5000
	// P@5        P_5          0.4000
	// recall@10  recall_10    0.6667
	// ndcg@10    ndcg_cut_10  0.3700
	// map        map          0.3889
}

func ExampleEvaluate() {
	qrels := metrics.Qrels{
		"q1": {"a": 1, "b": 1},
		"q2": {"c": 1},
	}
	run := metrics.Run{
		"q1": {{DocID: "a", Score: 3}, {DocID: "x", Score: 2}, {DocID: "b", Score: 1}},
	}
	m, _ := metrics.ParseMeasure("map")
	for _, complete := range []bool{false, true} {
		res, err := metrics.Evaluate(qrels, run, []metrics.Measure{m}, metrics.EvalOptions{Complete: complete})
		if err != nil {
			panic(err)
		}
		fmt.Printf("complete=%v: num_q=%d map=%.4f\n", complete, res.NumQ, res.Mean[0])
	}
	// Output:
	// complete=false: num_q=1 map=0.8333
	// complete=true: num_q=2 map=0.4167
}

func ExampleBootstrap() {
	hits := []float64{1, 0, 1, 1, 0, 1, 1, 1, 0, 1}
	ci := metrics.Bootstrap(hits, 1000, 1)
	fmt.Printf("hit@10 = %.2f, 95%% CI [%.2f, %.2f], n=%d\n", ci.Mean, ci.Low, ci.High, ci.N)
	// Output:
	// hit@10 = 0.70, 95% CI [0.40, 0.90], n=10
}

func ExampleMacro() {
	ndcg := []float64{0.9, 0.8, 0.7, 0.1}
	repo := []string{"big", "big", "big", "small"}
	fmt.Printf("micro %.2f, macro %.2f\n", metrics.Mean(ndcg), metrics.Macro(ndcg, repo))
	for _, g := range metrics.PerGroup(ndcg, repo) {
		fmt.Printf("%s: n=%d mean=%.2f\n", g.Key, g.N, g.Mean)
	}
	// Output:
	// micro 0.63, macro 0.45
	// big: n=3 mean=0.80
	// small: n=1 mean=0.10
}

func ExampleMcNemar() {
	a := []float64{1, 0, 0, 0, 0, 0, 1, 1}
	b := []float64{1, 1, 1, 1, 1, 1, 1, 0}
	r, err := metrics.McNemar(a, b)
	if err != nil {
		panic(err)
	}
	fmt.Printf("only a: %d, only b: %d, p = %.4f\n", r.B, r.C, r.P)
	// Output:
	// only a: 1, only b: 5, p = 0.2188
}

func ExamplePairedBootstrap() {
	a := []float64{0.2, 0.4, 0.1, 0.5, 0.3, 0.6}
	b := []float64{0.5, 0.6, 0.3, 0.6, 0.6, 0.8}
	// Every query improved, so only the 2 all-same-sign patterns of 2^6 are
	// as extreme as the observed difference: the exact randomization p is 1/32.
	p := metrics.PairedBootstrap(a, b, 1000, 1)
	fmt.Printf("b − a = %.3f, 95%% CI [%.3f, %.3f], p = %.3f\n", p.MeanDiff, p.Low, p.High, p.P)
	fmt.Printf("randomization p = %.3f\n", metrics.Permutation(a, b, 1000, 1))
	// Output:
	// b − a = 0.217, 95% CI [0.167, 0.267], p = 0.001
	// randomization p = 0.029
}

func ExampleParseMeasure() {
	for _, s := range []string{"ndcg_cut_10", "hit@5", "recip_rank", "pass@1-needle"} {
		m, err := metrics.ParseMeasure(s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s -> %s (trec_eval %q)\n", s, m, m.TrecName())
	}
	// Output:
	// ndcg_cut_10 -> ndcg@10 (trec_eval "ndcg_cut_10")
	// hit@5 -> hit@5 (trec_eval "success_5")
	// recip_rank -> mrr (trec_eval "recip_rank")
	// pass@1-needle -> pass@1-needle (trec_eval "")
}
