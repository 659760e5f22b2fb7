package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/goldenfmt"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// TestTokensTable writes golden files as -update does and checks the
// token table read from them against values worked out by hand: means,
// ranks among the systems with both measures, the rank a budget moves, a
// composite answer ranked by the budget alone, and a cell without token
// measures shown unranked.
func TestTokensTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "golden", "ds", "small")
	write := func(system, config string, vals []map[string]float64) {
		g := &goldenfmt.Golden{Dataset: "ds", Split: "small", System: system, Config: config, Tasks: map[string]goldenfmt.TaskOutcome{}}
		for i, v := range vals {
			o := goldenfmt.TaskOutcome{Values: map[string]resultfmt.Fixed{}}
			for m, x := range v {
				o.Values[m] = resultfmt.Fixed(x)
			}
			g.Tasks[string(rune('a'+i))] = o
		}
		require.NoError(t, goldenfmt.Write(goldenfmt.Path(filepath.Dir(filepath.Dir(dir)), "ds", "small", system, config), g))
	}
	tok := func(ndcg10, tokens, ndcg2k, cov2k float64) map[string]float64 {
		m := map[string]float64{"ndcg@10": ndcg10, "tokens@10": tokens}
		for _, b := range []string{"1000", "2000", "4000", "8000"} {
			m["ndcg_tok@"+b], m["covered_tok@"+b] = ndcg2k, cov2k
		}
		return m
	}
	// wide: best nDCG@10 (0.9), but 6000 tokens leave it 0.2 within 2k.
	write("bm25", "wide", []map[string]float64{tok(1, 6000, 0.2, 0), tok(0.8, 6000, 0.2, 0.5)})
	// lean: nDCG@10 0.7, all of it within 2k.
	write("dense", "lean", []map[string]float64{tok(0.7, 1500, 0.7, 1), tok(0.7, 1700, 0.7, 1)})
	// blob: a composite answer, no nDCG@10, 0.8 within 2k.
	blob := []map[string]float64{tok(0, 2000, 0.8, 1), tok(0, 2000, 0.8, 1)}
	for _, v := range blob {
		delete(v, "ndcg@10")
	}
	write("peer", "blob", blob)
	write("peer", "old", []map[string]float64{{"ndcg@10": 0.5}, {"ndcg@10": 0.5}})

	var out, errb bytes.Buffer
	require.NoError(t, run([]string{"-tokens", "-golden", dir}, &out, &errb), errb.String())
	got := out.String()
	for _, want := range []string{
		"**ds/small** (2 tasks; ranks by mean, ties share a rank)",
		"| bm25/wide | 6000 | 0.900 (1) | 0.200 | 0.200 (2) | 0.200 | 0.200 | 0.250 | 0.250 | 0.250 | 0.250 |",
		"| dense/lean | 1600 | 0.700 (2) | 0.700 | 0.700 (1) |",
		"| peer/blob | 2000 | – (–) | 0.800 | 0.800 (–) |",
		"| peer/old | – | 0.500 (–) | – | – |",
		"Ranked among the 2 systems with both measures. Rank by nDCG@10 → by ndcg_tok@2000: bm25/wide 1 → 2; dense/lean 2 → 1. peer/blob (no nDCG@10: a composite answer) would rank 1 by ndcg_tok@2000.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	out.Reset()
	require.NoError(t, run([]string{"-tokens", "-systems", "bm25,dense", "-golden", dir}, &out, &errb))
	require.NotContains(t, out.String(), "peer/")
	require.Contains(t, out.String(), "Ranked among the 2 systems with both measures. Rank by nDCG@10 → by ndcg_tok@2000: bm25/wide 1 → 2; dense/lean 2 → 1.\n")
	out.Reset()
	require.NoError(t, run([]string{"-tokens", "-systems", "bm25,peer/blob", "-golden", dir}, &out, &errb))
	require.Contains(t, out.String(), "| peer/blob |")
	require.NotContains(t, out.String(), "peer/old")
	out.Reset()
	require.NoError(t, run([]string{"-tokens", "-systems", "peer", "-golden", dir}, &out, &errb))
	require.Contains(t, out.String(), "| peer/blob | 2000 | – (–) | 0.800 | 0.800 (1) |", "without nDCG@10 anywhere the budget alone ranks")
	require.Contains(t, out.String(), "No system has nDCG@10 here (answers judged at rank 1 only): ranked by ndcg_tok@2000 alone.")
	require.Error(t, run([]string{"-tokens", "-budget", "3000", "-golden", dir}, &out, &errb), "3000 is not a measured budget")
	require.Error(t, run([]string{"-tokens", "-golden", filepath.Join(dir, "missing")}, &out, &errb))
}
