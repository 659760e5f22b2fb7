package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/trecfmt"
)

// TestWriteRunRanksAsSortRun keeps the format package's ranking order
// (trecfmt.WriteRun numbers results in it; trecfmt imports nothing of
// metrics) equal to metrics.SortRun, trec_eval's order: tied scores,
// signed zeros and ids that are prefixes of each other included.
func TestWriteRunRanksAsSortRun(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	run := trecfmt.Run{}
	for q := range 50 {
		qid := fmt.Sprintf("q%d", q)
		for i := range 1 + r.IntN(40) {
			score := float64(r.IntN(4)) / 2
			if r.IntN(5) == 0 {
				score = -score // -0 among them
			}
			run[qid] = append(run[qid], trecfmt.Result{DocID: fmt.Sprintf("d%d", i*r.IntN(3)+i), Score: score})
		}
		// Ids distinct within the query.
		seen := map[string]bool{}
		rs := run[qid][:0]
		for _, x := range run[qid] {
			if !seen[x.DocID] {
				seen[x.DocID] = true
				rs = append(rs, x)
			}
		}
		run[qid] = rs
	}
	var buf bytes.Buffer
	if err := trecfmt.WriteRun(&buf, run, "t"); err != nil {
		t.Fatal(err)
	}
	written := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		f := strings.Fields(l)
		written[f[0]] = append(written[f[0]], f[2])
	}
	for qid, rs := range run {
		ms := make([]metrics.Result, len(rs))
		for i, x := range rs {
			ms[i] = metrics.Result(x)
		}
		metrics.SortRun(ms)
		var want []string
		for _, x := range ms {
			want = append(want, x.DocID)
		}
		if diff := cmp.Diff(want, written[qid]); diff != "" {
			t.Errorf("query %s: WriteRun's order differs from metrics.SortRun (-SortRun +written):\n%s", qid, diff)
		}
	}
}
