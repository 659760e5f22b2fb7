package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// writeRecords writes one cell of 4 tasks on dataset toy: each failed with
// errMsg when set, else hit at rank 1.
func writeRecords(t *testing.T, dir, system, config, errMsg string) {
	t.Helper()
	var recs []resultfmt.Record
	for i := range 4 {
		r := resultfmt.Record{Dataset: "toy", Split: "small", System: system, Config: config, Task: fmt.Sprintf("t%d", i), Query: "q"}
		if errMsg != "" {
			r.Error = errMsg
		} else {
			r.Values = map[string]float64{"ndcg@10": 1, "hit@1": 1}
		}
		recs = append(recs, r)
	}
	require.NoError(t, resultfmt.WriteRecords(filepath.Join(dir, resultfmt.RecordsFileName("toy", "small", system, config)), recs))
}

// TestLeaderboardFailedCell: rbench leaderboard, like retrievalbench's,
// writes every page, then exits 1 naming a cell whose every task failed
// (it exited 0: a run that did less than asked looked whole).
func TestLeaderboardFailedCell(t *testing.T) {
	dir := t.TempDir()
	writeRecords(t, dir, "trigram", "tfidf", "")
	writeRecords(t, dir, "trigram", "dead", "index missing")
	out := filepath.Join(t.TempDir(), "lb")
	var stdout, stderr bytes.Buffer
	err := run([]string{"leaderboard", "-results", dir, "-out", out}, &stdout, &stderr)
	require.Error(t, err)
	require.Equal(t, 1, exitCode(err))
	require.ErrorContains(t, err, "1 cells failed every task: toy.small: trigram/dead")
	_, serr := os.Stat(filepath.Join(out, "index.html"))
	require.NoError(t, serr, "pages are written before the failure exit")
}

// TestLeaderboardLostPart: a missing part of a sharded run is an error
// naming it, and no pages are written (issue 39 item 1).
func TestLeaderboardLostPart(t *testing.T) {
	a := t.TempDir()
	writeRecords(t, a, "trigram", "tfidf", "")
	missing := filepath.Join(t.TempDir(), "records-2")
	out := filepath.Join(t.TempDir(), "lb")
	var stdout, stderr bytes.Buffer
	err := run([]string{"leaderboard", "-results", a + "," + missing, "-out", out}, &stdout, &stderr)
	require.ErrorContains(t, err, missing+": no such results directory (part 2 of 2 in -results)")
	require.NoDirExists(t, out)
}
