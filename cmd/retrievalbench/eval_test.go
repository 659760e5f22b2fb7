package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/internal/synth"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/trecfmt"
)

// supportedLine reports whether a trec_eval output line is for a measure
// that eval prints: one it reads by that name, or (sets: the expected
// output is of a measure set) one of all_trec's that it prints (the
// iprec_at_recall cutoffs).
func supportedLine(line string, sets bool) bool {
	name := strings.TrimSpace(strings.SplitN(line, "\t", 2)[0])
	if all, err := selectMeasures([]string{"all_trec"}, false); err == nil && sets {
		for _, m := range all.measures {
			if trecPrintName(m) == name {
				return true
			}
		}
	}
	sel, err := selectMeasures([]string{name}, false)
	return err == nil && (len(sel.measures) == 1 && sel.measures[0].TrecName() == name || len(sel.counts) == 1)
}

// TestEvalMatchesTrecEval runs "retrievalbench eval" with the flags of
// trec_eval's own tests (TESTS.md in the data pack) and compares the output
// with trec_eval's expected output, line for line, after dropping the lines
// of measures this tool does not compute (the official and all_trec
// outputs must be whole: byte for byte).
func TestEvalMatchesTrecEval(t *testing.T) {
	dir := filepath.Dir(testenv.MustHaveData(t, "trec_eval/TESTS.md"))
	tests := []struct {
		name     string
		flags    []string
		qrels    string
		run      string
		expected string
	}{
		{"default", nil, "qrels.test", "results.test", "out.test"},
		{"all_trec", []string{"-m", "all_trec"}, "qrels.test", "results.test", "out.test.a"},
		{"all_trec_q", []string{"-m", "all_trec", "-q"}, "qrels.test", "results.test", "out.test.aq"},
		{"complete", []string{"-m", "all_trec", "-q", "-c"}, "qrels.test", "results.trunc", "out.test.aqc"},
		{"complete_max", []string{"-m", "all_trec", "-q", "-c", "-M100"}, "qrels.test", "results.trunc", "out.test.aqcM"},
		{"rel_level", []string{"-m", "all_trec", "-q", "-l2"}, "qrels.rel_level", "results.test", "out.test.aql"},
		{"meas_params", []string{"-q", "-m", "P.5,7,3", "-m", "recall.20,2000", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20"},
			"qrels.test", "results.test", "out.test.meas_params"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"eval"}, tt.flags...)
			args = append(args, filepath.Join(dir, tt.qrels), filepath.Join(dir, tt.run))
			var stdout, stderr bytes.Buffer
			require.NoError(t, run(args, &stdout, &stderr), "stderr: %s", stderr.String())
			// meas_params gives trec_eval iprec_at_recall cutoffs of its
			// own, which eval does not take.
			if tt.name != "meas_params" && tt.name != "rel_level" {
				whole, err := os.ReadFile(filepath.Join(dir, tt.expected))
				require.NoError(t, err)
				if stdout.String() != string(whole) {
					t.Errorf("eval %s differs from trec_eval's %s byte for byte", strings.Join(tt.flags, " "), tt.expected)
				}
			}
			want := filteredLines(t, filepath.Join(dir, tt.expected), tt.name != "meas_params")
			if tt.name == "rel_level" {
				// trec_eval's test ran with -mrelstring.20; eval's
				// relstring has the default 10 characters.
				want = slices.DeleteFunc(want, func(l string) bool { return strings.HasPrefix(l, "relstring ") })
				got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
				if n := len(slices.DeleteFunc(slices.Clone(got), func(l string) bool { return !strings.HasPrefix(l, "relstring ") })); n != 3 {
					t.Errorf("eval -m all_trec -q: %d relstring lines, want one per query (3)", n)
				}
				stdout = *bytes.NewBufferString(strings.Join(slices.DeleteFunc(got, func(l string) bool { return strings.HasPrefix(l, "relstring ") }), "\n") + "\n")
			}
			got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("eval %s vs trec_eval's %s (-trec_eval +eval):\n%s", strings.Join(tt.flags, " "), tt.expected, diff)
			}
		})
	}
}

func filteredLines(t *testing.T, path string, sets bool) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if supportedLine(sc.Text(), sets) {
			out = append(out, sc.Text())
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out)
	return out
}

// writeFiles writes name → content into a temporary directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	return dir
}

const (
	smallQrels = "q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 d 1\nq3 0 e 1\n"
	// q1 ranks b (tie broken by doc id descending: b > a), a, x; q2 misses;
	// q4 has no judgments and is ignored.
	smallRun = "q1 Q0 a 1 0.5 sys\nq1 Q0 b 2 0.5 sys\nq1 Q0 x 3 0.1 sys\n" +
		"q2 Q0 y 1 0.9 sys\nq4 Q0 a 1 0.9 sys\n"
	// The same run with q1 split in two blocks.
	smallRunSplit = "q1 Q0 a 1 0.5 sys\nq2 Q0 y 1 0.9 sys\nq1 Q0 b 2 0.5 sys\nq4 Q0 a 1 0.9 sys\nq1 Q0 x 3 0.1 sys\n"
)

func TestEvalSmall(t *testing.T) {
	dir := writeFiles(t, map[string]string{"qrels": smallQrels, "run": smallRun, "split": smallRunSplit})
	want := strings.Join([]string{
		"num_ret               \tq1\t3",
		"num_rel               \tq1\t2",
		"num_rel_ret           \tq1\t2",
		"recip_rank            \tq1\t1.0000",
		"success_1             \tq1\t1.0000",
		"pass@1-needle         \tq1\t0.0000",
		"mrr@1                 \tq1\t1.0000",
		"num_ret               \tq2\t1",
		"num_rel               \tq2\t1",
		"num_rel_ret           \tq2\t0",
		"recip_rank            \tq2\t0.0000",
		"success_1             \tq2\t0.0000",
		"pass@1-needle         \tq2\t0.0000",
		"mrr@1                 \tq2\t0.0000",
		"runid                 \tall\tsys",
		"num_q                 \tall\t2",
		"num_ret               \tall\t4",
		"num_rel               \tall\t3",
		"num_rel_ret           \tall\t2",
		"recip_rank            \tall\t0.5000",
		"success_1             \tall\t0.5000",
		"pass@1-needle         \tall\t0.0000",
		"mrr@1                 \tall\t0.5000",
	}, "\n") + "\n"
	for _, runFile := range []string{"run", "split"} {
		t.Run(runFile, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := []string{"eval", "-q", "-m", "pass@1-needle", "-m", "mrr@1", "-m", "success.1", "-m", "recip_rank",
				"-m", "runid", "-m", "num_q", "-m", "num_ret", "-m", "num_rel", "-m", "num_rel_ret",
				filepath.Join(dir, "qrels"), filepath.Join(dir, runFile)}
			require.NoError(t, run(args, &stdout, &stderr), "stderr: %s", stderr.String())
			if diff := cmp.Diff(want, stdout.String()); diff != "" {
				t.Errorf("grouped and split runs print the same (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("complete", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		args := []string{"eval", "-c", "-m", "recip_rank", "-m", "num_q", filepath.Join(dir, "qrels"), filepath.Join(dir, "run")}
		require.NoError(t, run(args, &stdout, &stderr))
		want := "num_q                 \tall\t3\nrecip_rank            \tall\t0.3333\n"
		if diff := cmp.Diff(want, stdout.String()); diff != "" {
			t.Errorf("-c averages over q1, q2 and the result-less q3 (-want +got):\n%s", diff)
		}
	})
}

func TestEvalErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"qrels":     smallQrels,
		"run":       smallRun,
		"badqrels":  "q1 0 a 1\nq1 0 b high\n",
		"badrun":    "q1 Q0 a 1 0.5 sys\nq1 Q0 b 2 NaN sys\n",
		"duprun":    "q1 Q0 a 1 0.5 sys\nq1 Q0 a 2 0.4 sys\n",
		"otherqids": "zz Q0 a 1 0.5 sys\n",
	})
	p := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name, reason string
		args         []string
		code         int
		msg          string
	}{
		{"no_args", "QRELS and RUN are required", []string{"eval"}, 2, "want QRELS and RUN"},
		{"one_arg", "", []string{"eval", p("qrels")}, 2, "want QRELS and RUN"},
		{"unknown_measure", "a measure eval does not know is bad usage", []string{"eval", "-m", "yaap", p("qrels"), p("run")}, 2, `unknown measure "yaap"`},
		{"bad_cutoff", "", []string{"eval", "-m", "P.0", p("qrels"), p("run")}, 2, "not a positive integer"},
		{"bad_level", "-l below 1", []string{"eval", "-l", "0", p("qrels"), p("run")}, 2, "relevance level"},
		{"bad_flag", "", []string{"eval", "-x", p("qrels"), p("run")}, 2, "flag provided but not defined"},
		{"missing_file", "unreadable input is a data error", []string{"eval", p("nope"), p("run")}, 1, "no such file"},
		{"bad_qrels", "names file and line", []string{"eval", p("badqrels"), p("run")}, 1, p("badqrels") + `:2: grade "high" is not an integer`},
		{"bad_run", "names file and line", []string{"eval", p("qrels"), p("badrun")}, 1, p("badrun") + `:2: score "NaN" is not finite`},
		{"dup_doc", "a doc twice in a query", []string{"eval", p("qrels"), p("duprun")}, 1, p("duprun") + `:2: document "a" retrieved twice`},
		{"no_overlap", "no query with judgments and results", []string{"eval", p("qrels"), p("otherqids")}, 1, "no query has both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(tt.args, &stdout, &stderr)
			if err == nil {
				t.Fatalf("%s: want an error", tt.reason)
			}
			if got := exitCode(err); got != tt.code {
				t.Errorf("%s: exit code %d, want %d (err %v)", tt.reason, got, tt.code, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%s: error %q does not contain %q", tt.reason, err, tt.msg)
			}
			if tt.code == 2 && tt.name != "unknown_measure" && tt.name != "bad_cutoff" && tt.name != "bad_level" && stderr.Len() == 0 {
				t.Errorf("%s: usage errors print usage on stderr", tt.reason)
			}
		})
	}
}

// TestEvalStreamingMatchesInMemory checks the pipelined streaming path of
// eval against metrics.Evaluate on the run read whole, on a generated run
// large enough to keep both goroutines busy.
func TestEvalStreamingMatchesInMemory(t *testing.T) {
	cfg := synth.DefaultConfig()
	cfg.Queries, cfg.Retrieved, cfg.Judged = 300, 200, 20
	qrelsPath, runPath, err := synth.WriteFiles(t.TempDir(), cfg)
	require.NoError(t, err)
	sel, err := selectMeasures([]string{"all_trec", "mrr@10", "hit", "pass@1-needle", "coverage"}, false)
	require.NoError(t, err)
	// The same lines with the first moved to the end: the first query is no
	// longer one block, so eval takes its fallback for ungrouped runs. Line
	// order does not change the evaluation.
	data, err := os.ReadFile(runPath)
	require.NoError(t, err)
	first, rest, _ := strings.Cut(string(data), "\n")
	ungrouped := filepath.Join(t.TempDir(), "ungrouped")
	require.NoError(t, os.WriteFile(ungrouped, []byte(rest+first+"\n"), 0o644))
	e, err := metrics.NewEvaluator(nil, sel.measures, metrics.EvalOptions{})
	require.NoError(t, err)
	if _, err := scanRun(ungrouped, e, trecfmt.ScanGroups); !errors.Is(err, trecfmt.ErrNotGrouped) {
		t.Fatalf("streaming the ungrouped run: err = %v, want ErrNotGrouped (else the fallback goes untested)", err)
	}
	for _, opt := range []metrics.EvalOptions{{AllJudged: true}, {RelLevel: 2, MaxDocs: 50, AllJudged: true}} {
		fallback, _, err := evalFiles(qrelsPath, ungrouped, sel.measures, opt)
		require.NoError(t, err)
		got, tag, err := evalFiles(qrelsPath, runPath, sel.measures, opt)
		require.NoError(t, err)
		qrels, err := trecfmt.ReadQrelsFile(qrelsPath)
		require.NoError(t, err)
		run, wantTag, err := trecfmt.ReadRunFile(runPath, false)
		require.NoError(t, err)
		mrun := metrics.Run{}
		for qid, rs := range run {
			for _, r := range rs {
				mrun[qid] = append(mrun[qid], metrics.Result(r))
			}
		}
		want, err := metrics.Evaluate(qrels, mrun, sel.measures, opt)
		require.NoError(t, err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v: streaming and in-memory evaluation differ (-in-memory +streaming):\n%s", opt, diff)
		}
		if diff := cmp.Diff(want, fallback); diff != "" {
			t.Errorf("%+v: ungrouped-run fallback differs (-in-memory +fallback):\n%s", opt, diff)
		}
		if tag != wantTag {
			t.Errorf("tag %q, want %q", tag, wantTag)
		}
	}
}
