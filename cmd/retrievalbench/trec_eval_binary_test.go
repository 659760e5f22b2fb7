package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/internal/synth"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// TestTrecEvalBinary checks eval's output against trec_eval 10.0's, built
// from its C source into the cache (testenv.TrecEvalBinary: when gcc, make
// and the source are there; make trec-eval builds the same), byte for
// byte, per query and "all", on small inputs of the shapes make perf
// measures: few judgments per query, dense judgments (more positives per
// query than rank counts, so the sorting path runs too), and both with
// the run's lines shuffled; with the measure sets users add (make perf's
// -eval-measures).
func TestTrecEvalBinary(t *testing.T) {
	bin := testenv.TrecEvalBinary(t, testenv.TrecEvalDefault)
	few := synth.Config{Queries: 40, Retrieved: 200, Judged: 12, MaxGrade: 3, DocPool: 5000, Seed: 3, Tag: "few"}
	dense := synth.Config{Queries: 12, Retrieved: 400, Judged: 300, MaxGrade: 3, DocPool: 5000, Seed: 4, Tag: "dense"}
	args := [][]string{
		{"-q", "-c", "-m", "map", "-m", "ndcg_cut.10"},
		{"-q", "-m", "map", "-m", "P.5,10,100", "-m", "recip_rank", "-m", "Rprec", "-m", "ndcg", "-m", "recall.100"},
		{"-c", "-l2", "-M100", "-m", "map", "-m", "ndcg_cut.10,20"},
		{"-q", "-c", "-m", "ndcg_cut.5,10,20"},
		{"-q", "-c", "-m", "P.1,5,10"},
		{"-q", "-c", "-M", "100", "-m", "map", "-m", "ndcg_cut.10"},
		{"-q", "-c", "-l", "2", "-m", "map", "-m", "ndcg_cut.10"},
		{"-q", "-c"}, // trec_eval's default measures (official)
		{"-q", "-c", "-m", "all_trec"},
		{"-q", "-c", "-J", "-M", "120", "-l", "2", "-m", "all_trec"},
		{"-q", "-m", "all_trec"},
		{"-q", "-c", "-J", "-l", "2", "-M", "150"},
		{"-c", "-l", "3"},
		{"-q", "-c", "-J", "-m", "map", "-m", "ndcg_cut.10", "-m", "P.5,10", "-m", "num_ret", "-m", "num_rel_ret"},
		{"-q", "-c", "-J", "-M", "100", "-l", "2", "-m", "map", "-m", "Rprec", "-m", "recip_rank", "-m", "ndcg"},
		{"-q", "-c", "-M", "50", "-l", "3", "-m", "map_cut.5,50", "-m", "success.1,5", "-m", "set_P", "-m", "set_recall", "-m", "num_rel_ret"},
	}
	for _, sh := range []struct {
		name    string
		cfg     synth.Config
		shuffle bool
	}{{"few", few, false}, {"dense", dense, false}, {"few-shuffled", few, true}, {"dense-shuffled", dense, true}} {
		t.Run(sh.name, func(t *testing.T) {
			dir := t.TempDir()
			qrels, run, err := synth.WriteFiles(dir, sh.cfg)
			if err != nil {
				t.Fatal(err)
			}
			// A judged query without results, for -c. Without -c,
			// trec_eval 10.0 stops at such a query (exit 4: "result qid
			// ... not found in qrels") where eval, like trec_eval 9,
			// leaves it out: those runs read the qrels without it.
			b, err := os.ReadFile(qrels)
			if err != nil {
				t.Fatal(err)
			}
			qrelsC := filepath.Join(dir, "qrels-c.txt")
			if err := os.WriteFile(qrelsC, append(b, "zz-only-judged 0 doc0000001 2\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			if sh.shuffle {
				b, err := os.ReadFile(run)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.SplitAfter(string(b), "\n")
				rand.New(rand.NewPCG(1, 2)).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
				run = filepath.Join(dir, "run-shuffled.txt")
				if err := os.WriteFile(run, []byte(strings.Join(lines, "")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, a := range args {
				q := qrels
				if slices.Contains(a, "-c") {
					q = qrelsC
				}
				full := append(append([]string(nil), a...), q, run)
				want, err := exec.Command(bin, full...).Output()
				if err != nil {
					t.Fatalf("trec_eval %s: %v", strings.Join(a, " "), err)
				}
				var got, stderr bytes.Buffer
				if err := runEval(full, &got, &stderr); err != nil {
					t.Fatalf("eval %s: %v\n%s", strings.Join(a, " "), err, stderr.String())
				}
				ours := got.String()
				if slices.Contains(a, "-q") && slices.Contains(a, "-c") && !strings.Contains(ours, "\tzz-only-judged\t") {
					t.Errorf("eval %s: no line for the judged query without results", strings.Join(a, " "))
				}
				if ours != string(want) {
					t.Errorf("eval %s differs from trec_eval's:\n%s", strings.Join(a, " "), lineDiff(ours, string(want)))
				}
				if n := strings.Count(got.String(), "\n"); n < 2 {
					t.Errorf("eval %s: %d lines", strings.Join(a, " "), n)
				}
			}
		})
	}
}

// lineDiff lists the first lines that differ between ours and trec_eval's.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < max(len(g), len(w)) && n < 10; i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			b.WriteString("ours:      " + gl + "\ntrec_eval: " + wl + "\n")
			n++
		}
	}
	return b.String()
}
