package metrics_test

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/trecfmt"
)

// expectedLine is one "measure<TAB>qid<TAB>value" line of a trec_eval output.
type expectedLine struct {
	measure, qid, value string
	line                int
}

func readExpected(t *testing.T, path string) []expectedLine {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []expectedLine
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		parts := strings.Split(sc.Text(), "\t")
		require.Len(t, parts, 3, "%s:%d", path, n)
		out = append(out, expectedLine{strings.TrimSpace(parts[0]), parts[1], strings.TrimSpace(parts[2]), n})
	}
	require.NoError(t, sc.Err())
	return out
}

// countMeasures are trec_eval's count lines, checked against RunResult's counts.
var countMeasures = map[string]bool{"num_q": true, "num_ret": true, "num_rel": true, "num_rel_ret": true}

// comparable returns the measures of want that this package computes: those
// whose trec_eval name parses and prints back unchanged.
func comparable(want []expectedLine) []metrics.Measure {
	seen := map[metrics.Measure]bool{}
	var ms []metrics.Measure
	for _, w := range want {
		m, err := metrics.ParseMeasure(w.measure)
		if err != nil || m.TrecName() != w.measure || seen[m] {
			continue
		}
		seen[m] = true
		ms = append(ms, m)
	}
	return ms
}

// runOf converts a run as trecfmt reads it (the format package knows
// nothing of metrics) to metrics.Run.
func runOf(r trecfmt.Run) metrics.Run {
	out := make(metrics.Run, len(r))
	for qid, rs := range r {
		for _, x := range rs {
			out[qid] = append(out[qid], metrics.Result(x))
		}
	}
	return out
}

// checkAgainst evaluates qrels/run with opt and compares every comparable
// line of want, per query and "all"; exact means compare to 1e-9 besides
// the 4 printed decimals. It returns how many lines it compared.
func checkAgainst(t *testing.T, qrelsPath, runPath string, opt metrics.EvalOptions, want []expectedLine, exact bool) int {
	t.Helper()
	qrels, err := trecfmt.ReadQrelsFile(qrelsPath)
	require.NoError(t, err)
	run, _, err := trecfmt.ReadRunFile(runPath, true)
	require.NoError(t, err)
	ms := comparable(want)
	require.NotEmpty(t, ms, "no comparable measures")
	res, err := metrics.Evaluate(qrels, runOf(run), ms, opt)
	require.NoError(t, err)

	got := map[[2]string]float64{}
	for _, q := range res.Queries {
		for i, m := range ms {
			got[[2]string{m.TrecName(), q.QID}] = q.Values[i]
		}
		got[[2]string{"num_ret", q.QID}] = float64(q.NumRet)
		got[[2]string{"num_rel", q.QID}] = float64(q.NumRel)
		got[[2]string{"num_rel_ret", q.QID}] = float64(q.NumRelRet)
	}
	for i, m := range ms {
		got[[2]string{m.TrecName(), "all"}] = res.Mean[i]
	}
	got[[2]string{"num_q", "all"}] = float64(res.NumQ)
	got[[2]string{"num_ret", "all"}] = float64(res.NumRet)
	got[[2]string{"num_rel", "all"}] = float64(res.NumRel)
	got[[2]string{"num_rel_ret", "all"}] = float64(res.NumRelRet)

	compared := 0
	for _, w := range want {
		v, ok := got[[2]string{w.measure, w.qid}]
		if !ok {
			if _, err := metrics.ParseMeasure(w.measure); (err == nil && comparableName(w.measure)) || countMeasures[w.measure] {
				t.Errorf("line %d: %s for %s: not computed", w.line, w.measure, w.qid)
			}
			continue
		}
		compared++
		var s string
		if countMeasures[w.measure] {
			s = strconv.Itoa(int(v))
		} else {
			s = fmt.Sprintf("%.4f", v)
		}
		if s != w.value {
			t.Errorf("line %d: %s %s = %s (%.17g), trec_eval %s", w.line, w.measure, w.qid, s, v, w.value)
			continue
		}
		if exact {
			e, err := strconv.ParseFloat(w.value, 64)
			require.NoError(t, err)
			if math.Abs(e-v) > 1e-9 {
				t.Errorf("line %d: %s %s = %.17g, reference %.17g", w.line, w.measure, w.qid, v, e)
			}
		}
	}
	return compared
}

func comparableName(name string) bool {
	m, err := metrics.ParseMeasure(name)
	return err == nil && m.TrecName() == name
}

// TestTrecEvalParity checks every measure this package shares with trec_eval
// against trec_eval's own expected outputs (TESTS.md of the data pack names
// the flags behind each file), per query and "all", to the 4 printed
// decimals.
func TestTrecEvalParity(t *testing.T) {
	dir := filepath.Dir(testenv.MustHaveData(t, "trec_eval/TESTS.md"))
	tests := []struct {
		name, flags, qrels, run, expected string
		opt                               metrics.EvalOptions
		compared                          int // lines of the expected file this package computes
	}{
		{"default", "", "qrels.test", "results.test", "out.test", metrics.EvalOptions{}, 16},
		{"all_trec", "-m all_trec", "qrels.test", "results.test", "out.test.a", metrics.EvalOptions{}, 49},
		{"all_trec_q", "-m all_trec -q", "qrels.test", "results.test", "out.test.aq", metrics.EvalOptions{}, 193},
		{"complete", "-m all_trec -q -c", "qrels.test", "results.trunc", "out.test.aqc", metrics.EvalOptions{Complete: true}, 193},
		{"complete_max", "-m all_trec -q -c -M100", "qrels.test", "results.trunc", "out.test.aqcM", metrics.EvalOptions{Complete: true, MaxDocs: 100}, 193},
		{"rel_level", "-m all_trec -q -l2", "qrels.rel_level", "results.test", "out.test.aql", metrics.EvalOptions{RelLevel: 2}, 193},
		{"meas_params", "-q -m P.5,7,3 -m recall.20,2000 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 …", "qrels.test", "results.test", "out.test.meas_params", metrics.EvalOptions{}, 44},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := readExpected(t, filepath.Join(dir, tt.expected))
			n := checkAgainst(t, filepath.Join(dir, tt.qrels), filepath.Join(dir, tt.run), tt.opt, want, false)
			t.Logf("trec_eval %s %s %s: %d values compared", tt.flags, tt.qrels, tt.run, n)
			if n != tt.compared {
				t.Errorf("compared %d values, want %d", n, tt.compared)
			}
		})
	}
}

// TestIRMeasuresCompatParity checks the ir_measures compat fixtures (graded
// judgments up to 50) against reference values computed with trec_eval's C
// code through pytrec_eval (testdata/compat/gen_expected.py), at relevance
// levels 1 and 2, to 1e-9.
func TestIRMeasuresCompatParity(t *testing.T) {
	qrels := testenv.MustHaveData(t, "trec_eval/compat.qrels")
	run := testenv.MustHaveData(t, "trec_eval/compat.run")
	for _, level := range []int{1, 2} {
		t.Run(fmt.Sprintf("l%d", level), func(t *testing.T) {
			want := readExpected(t, filepath.Join("testdata", "compat", fmt.Sprintf("expected_l%d.tsv", level)))
			// The script prints 17 significant digits; compare at 4 decimals
			// like trec_eval's output, and to 1e-9.
			for i := range want {
				v, err := strconv.ParseFloat(want[i].value, 64)
				require.NoError(t, err)
				want[i].value = fmt.Sprintf("%.4f", v)
			}
			n := checkAgainst(t, qrels, run, metrics.EvalOptions{RelLevel: level}, want, false)
			if n < 100 {
				t.Errorf("compared %d values, want at least 100", n)
			}
			exact := readExpected(t, filepath.Join("testdata", "compat", fmt.Sprintf("expected_l%d.tsv", level)))
			qr, err := trecfmt.ReadQrelsFile(qrels)
			require.NoError(t, err)
			rn, _, err := trecfmt.ReadRunFile(run, false)
			require.NoError(t, err)
			ms := comparable(exact)
			res, err := metrics.Evaluate(qr, runOf(rn), ms, metrics.EvalOptions{RelLevel: level})
			require.NoError(t, err)
			idx := map[string]int{}
			for i, m := range ms {
				idx[m.TrecName()] = i
			}
			for _, w := range exact {
				e, err := strconv.ParseFloat(w.value, 64)
				require.NoError(t, err)
				var v float64
				if w.qid == "all" {
					v = res.Mean[idx[w.measure]]
				} else {
					for _, q := range res.Queries {
						if q.QID == w.qid {
							v = q.Values[idx[w.measure]]
						}
					}
				}
				if math.Abs(v-e) > 1e-9 {
					t.Errorf("%s %s = %.17g, reference %.17g", w.measure, w.qid, v, e)
				}
			}
		})
	}
}
