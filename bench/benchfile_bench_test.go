package bench

import (
	"bytes"
	"maps"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"

	"github.com/retrievalbench/retrievalbench/benchtest"
	"github.com/retrievalbench/retrievalbench/gate"
	"github.com/retrievalbench/retrievalbench/goldenfmt"
)

// runOwnBenchmarks re-runs this test binary as a benchmark run of the
// hermetic RepoQA fixture under BM25 porter — what `make bench` does, at
// -benchtime=2x — and returns its standard output, the benchmark file.
func runOwnBenchmarks(t *testing.T, env ...string) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the benchmark binary (-short)")
	}
	cmd := exec.Command(os.Args[0],
		"-test.run=^$", "-test.bench=^BenchmarkRepoQA$/^system=bm25$/^config=porter$/^dataset=fixture$/",
		"-test.benchtime=2x", "-test.count=2", "-size=fixture")
	cmd.Env = append(os.Environ(), env...)
	// go test writes the binary's stdout and stderr to one stream, the
	// benchmark file: so does this.
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "benchmark run failed:\n%s", out)
	return out
}

// TestBenchmarkFile checks the file a benchmark run writes: the unit
// metadata reaches it and benchfmt reads it back, every result parses with
// key=value name parts, the quality numbers equal the golden file that
// TestRepoQA checks against, and the gate finds no regression comparing the file
// with itself.
func TestBenchmarkFile(t *testing.T) {
	out := runOwnBenchmarks(t)

	rd := benchfmt.NewReader(bytes.NewReader(out), "bench.txt")
	meta := map[string]string{} // "unit key" → value
	type sample struct {
		parts  map[string]string
		values map[string]float64
	}
	var results []sample
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("benchmark output does not parse: %v", rec)
		case *benchfmt.UnitMetadata:
			meta[rec.OrigUnit+" "+rec.Key] = rec.Value
		case *benchfmt.Result:
			base, parts := rec.Name.Parts()
			require.Equal(t, "RepoQA", string(base), "result %s", rec.Name)
			s := sample{parts: map[string]string{}, values: map[string]float64{}}
			for _, p := range parts {
				k, v, ok := strings.Cut(strings.TrimPrefix(string(p), "/"), "=")
				if !ok {
					require.True(t, strings.HasPrefix(string(p), "-"), "name part %q of %s is neither key=value nor -GOMAXPROCS", p, rec.Name)
					continue
				}
				s.parts[k] = v
			}
			for _, v := range rec.Values { // tidied: ns/op is read as sec/op
				s.values[v.Unit] = v.Value
			}
			results = append(results, s)
		}
	}
	require.NoError(t, rd.Err())

	wantMeta := map[string]string{}
	for _, line := range benchtest.UnitMetadata() {
		f := strings.Fields(line) // Unit <unit> key=value…
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			wantMeta[f[1]+" "+k] = v
		}
	}
	if diff := cmp.Diff(wantMeta, meta); diff != "" {
		t.Errorf("unit metadata read back from the file (-want +got):\n%s", diff)
	}
	for _, u := range []string{"hit@1 assume", "hit@10 assume", "MRR assume", "nDCG@10 assume"} {
		require.Equal(t, "exact", meta[u], "quality units must be assume=exact")
	}

	golden, err := goldenfmt.Read(goldenfmt.Path(goldenDir, "repoqa-fixture", "all", "bm25", "porter"))
	require.NoError(t, err)
	counts := map[string]int{}
	for _, s := range results {
		if diff := cmp.Diff(map[string]string{"system": "bm25", "config": "porter", "dataset": "fixture", "op": s.parts["op"]}, s.parts); diff != "" {
			t.Errorf("name parts (-want +got):\n%s", diff)
		}
		op := s.parts["op"]
		counts[op]++
		if s.values[benchtest.UnitPeakRSS] < 1<<20 {
			t.Errorf("op=%s: peak-RSS-bytes = %v, want at least 1 MiB", op, s.values[benchtest.UnitPeakRSS])
		}
		sec := s.values["sec/op"]
		require.Greater(t, sec, 0.0, "op=%s sec/op", op)
		switch op {
		case "search":
			// queries/s is one query per op.
			if got, want := s.values[benchtest.UnitQueries], 1/sec; math.Abs(got-want) > 0.01*want {
				t.Errorf("queries/s = %v, want 1/(sec/op) = %v", got, want)
			}
			for _, q := range benchtest.QualityUnits() {
				want := float64(golden.Metrics[q.Measure].Mean)
				if got := s.values[q.Unit]; math.Abs(got-want) > 0.00005 {
					t.Errorf("%s = %v, golden %s mean = %v", q.Unit, got, q.Measure, want)
				}
			}
		case "index":
			if s.values[benchtest.UnitDocs] <= 0 {
				t.Errorf("op=index: docs/s = %v, want > 0", s.values[benchtest.UnitDocs])
			}
			if _, ok := s.values["hit@10"]; ok {
				t.Errorf("op=index reports hit@10; quality belongs to op=search rows")
			}
		default:
			t.Errorf("unexpected op %q", op)
		}
	}
	if diff := cmp.Diff(map[string]int{"index": 2, "search": 2}, counts); diff != "" {
		t.Errorf("result lines per op with -count=2 (-want +got):\n%s", diff)
	}

	// The gate reads this file as written: a quality drop planted in a copy
	// (hit@1 lowered on every search line) must fail it, naming the unit.
	worse := plantQualityDrop(t, out, "hit@1", 0.1)
	rep, err := gate.Compare(bytes.NewReader(out), bytes.NewReader(worse), "before", "after", gate.DefaultConfig())
	require.NoError(t, err)
	var regressed []string
	for _, r := range rep.Rows {
		if r.Verdict == gate.Regressed {
			regressed = append(regressed, r.Unit)
		}
	}
	if !rep.Failed() || !cmp.Equal([]string{"hit@1"}, regressed) {
		t.Errorf("gate on a planted hit@1 drop: failed=%v, regressed units %v, want [hit@1]:\n%s", rep.Failed(), regressed, rep.Summary())
	}
	rep, err = gate.Compare(bytes.NewReader(worse), bytes.NewReader(out), "after", "before", gate.DefaultConfig())
	require.NoError(t, err)
	require.False(t, rep.Failed(), "a quality gain failed the gate: %s", rep.Summary())
}

// plantQualityDrop returns a copy of a benchmark file with every value of
// unit lowered by d.
func plantQualityDrop(t *testing.T, file []byte, unit string, d float64) []byte {
	t.Helper()
	var out []string
	n := 0
	for _, line := range strings.Split(string(file), "\n") {
		f := strings.Fields(line)
		for i := 2; strings.HasPrefix(line, "Benchmark") && i+1 < len(f); i += 2 {
			if f[i+1] == unit {
				v, err := strconv.ParseFloat(f[i], 64)
				require.NoError(t, err)
				f[i] = strconv.FormatFloat(v-d, 'f', 4, 64)
				line = strings.Join(f, " ")
				n++
			}
		}
		out = append(out, line)
	}
	require.NotZero(t, n, "no %s values in the benchmark file", unit)
	return []byte(strings.Join(out, "\n"))
}

// TestPlantedDelay checks the hand-check mechanism of docs/benchmarking.md:
// RETRIEVALBENCH_BENCH_DELAY slows every search op by at least the delay
// and leaves index ops and quality alone.
func TestPlantedDelay(t *testing.T) {
	const delay = 0.020 // sec
	out := runOwnBenchmarks(t, benchtest.EnvBenchDelay+"=20ms")
	rd := benchfmt.NewReader(bytes.NewReader(out), "bench.txt")
	searched := 0
	for rd.Scan() {
		res, ok := rd.Result().(*benchfmt.Result)
		if !ok || !strings.Contains(string(res.Name), "op=search") {
			continue
		}
		searched++
		for _, v := range res.Values {
			if v.Unit == "sec/op" && v.Value < delay {
				t.Errorf("%s: %v sec/op with a planted 20ms delay", res.Name, v.Value)
			}
		}
	}
	require.NoError(t, rd.Err())
	require.Equal(t, 2, searched, "op=search result lines")
	require.Contains(t, string(out), "a planted slowdown", "the run says the delay is planted")
	require.Equal(t, []string{"cpu", "goarch", "goos", "pkg"}, configKeys(t, out),
		"the planted delay's file has configuration keys the testing package did not print (benchstat would put it in a table of its own)")

	bad := runOwnBenchmarksErr(t, benchtest.EnvBenchDelay+"=soon")
	require.Contains(t, bad, benchtest.EnvBenchDelay+`="soon"`, "a bad delay is an error naming the variable")
}

// configKeys returns the file-level configuration keys benchfmt reads from
// a benchmark file: the testing package's (goos, goarch, pkg, cpu) unless
// something else printed a "key: value" line into it.
func configKeys(t *testing.T, file []byte) []string {
	t.Helper()
	keys := map[string]bool{}
	rd := benchfmt.NewReader(bytes.NewReader(file), "bench.txt")
	for rd.Scan() {
		if res, ok := rd.Result().(*benchfmt.Result); ok {
			for _, c := range res.Config {
				if c.File {
					keys[c.Key] = true
				}
			}
		}
	}
	require.NoError(t, rd.Err())
	return slices.Sorted(maps.Keys(keys))
}

// runOwnBenchmarksErr runs the benchmarks expecting them to fail and
// returns the combined output.
func runOwnBenchmarksErr(t *testing.T, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0],
		"-test.run=^$", "-test.bench=^BenchmarkRepoQA$/^system=bm25$/^config=porter$/^dataset=fixture$/^op=search$",
		"-test.benchtime=1x", "-size=fixture")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "benchmark run with %v succeeded:\n%s", env, out)
	return string(out)
}
