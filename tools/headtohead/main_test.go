package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// TestTable writes records and cell files as `go test ./bench -results`
// does and checks the table against values worked out by hand.
func TestTable(t *testing.T) {
	dir, cold := t.TempDir(), t.TempDir()
	write := func(dir, system, config string, ndcg, lat []float64) {
		var recs []resultfmt.Record
		for i := range ndcg {
			hit := 0.0
			if ndcg[i] == 1 {
				hit = 1
			}
			recs = append(recs, resultfmt.Record{Dataset: "ds", Split: "small", System: system, Config: config,
				Task: string(rune('a' + i)), Values: map[string]float64{"ndcg@10": ndcg[i], "hit@1": hit}, LatencyMS: lat[i]})
		}
		require.NoError(t, resultfmt.WriteRecords(filepath.Join(dir, resultfmt.RecordsFileName("ds", "small", system, config)), recs))
	}
	write(dir, "bm25", "plain", []float64{1, 0, 1, 0}, []float64{1, 2, 3, 4})
	write(dir, "dense", "m", []float64{0.6, 0.6, 0.6, 0.6}, []float64{10, 20, 30, 40})
	write(dir, "peer", "x", []float64{0, 0, 0, 0}, []float64{9, 9, 9, 9}) // shadowed by the cold run's cell
	write(cold, "peer", "x", []float64{1, 1, 1, 1}, []float64{100, 200, 300, 400})
	require.NoError(t, resultfmt.WriteCell(filepath.Join(cold, resultfmt.CellFileName("ds", "small", "peer", "x")),
		resultfmt.Cell{Dataset: "ds", Split: "small", System: "peer", Config: "x", IndexSeconds: 12.5, PeakRSSMB: 2048}))
	require.NoError(t, resultfmt.WriteCell(filepath.Join(dir, resultfmt.CellFileName("ds", "small", "peer", "x")),
		resultfmt.Cell{Dataset: "ds", Split: "small", System: "peer", Config: "x", IndexSeconds: 0.1, PeakRSSMB: 1}))

	var out, errb bytes.Buffer
	require.NoError(t, resultfmt.WriteCell(filepath.Join(dir, resultfmt.CellFileName("ds", "small", "dense", "m")),
		resultfmt.Cell{Dataset: "ds", Split: "small", System: "dense", Config: "m", IndexSeconds: 0.5}))
	require.NoError(t, run([]string{"-results", cold + "," + dir, "-warm", dir, "-builtin", "bm25,dense"}, &out, &errb))
	got := out.String()
	for _, want := range []string{
		"**ds/small** (4 tasks; best built-in on ndcg@10: dense/m)",
		// bm25: mean 0.5, 0.1 below dense's 0.6; p50 of 1,2,3,4 = 2.5; no cell file.
		"| bm25/plain | 0.500 [",
		"| -0.100 |",
		"| 2.5 | – | – |",
		// dense is the reference.
		"| dense/m | 0.000 [0.000, 0.000] | 0.600 [0.600, 0.600] | — | — | 25.0 | 0.5 (reused) | – |",
		// The peer from the first directory: +0.4, p50 250, its cell's cost.
		"| **peer/x** | 1.000 [1.000, 1.000] | 1.000 [1.000, 1.000] | +0.400 |",
		"| 250.0 | 12.5 | 2048 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}
