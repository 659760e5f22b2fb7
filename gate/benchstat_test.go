package gate

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// goTool returns the go command, skipping the test in -short mode or when
// there is none.
func goTool(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the go command; skipped with -short")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH: %v", err)
	}
	return goCmd
}

// run runs the go command in the module and returns its standard output.
func run(t *testing.T, goCmd string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), goCmd, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go %s:\n%s%s", strings.Join(args, " "), out, stderr.String())
	return out
}

// benchstatCell is one comparison row of benchstat's CSV output.
type benchstatCell struct {
	old, new float64
	delta    string // "+29.52%" or "~"
	test     string // "p=0.000 n=10" or, for exact units, "n=10"
}

// parseBenchstatCSV reads "benchstat -format csv OLD NEW" output: blocks of
// ",OLD,,NEW,,," / ",unit,CI,unit,CI,vs base,P" / rows, split by blank lines.
func parseBenchstatCSV(t *testing.T, out []byte) map[string]benchstatCell {
	t.Helper()
	cells := make(map[string]benchstatCell)
	unit := ""
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" || !strings.HasPrefix(line, ",") && unit == "" {
			unit = ""
			continue
		}
		rec, err := csv.NewReader(strings.NewReader(line)).Read()
		require.NoError(t, err, line)
		switch {
		case rec[0] == "" && len(rec) > 2 && rec[2] == "CI":
			unit = rec[1]
		case rec[0] == "" || rec[0] == "geomean" || unit == "":
		case len(rec) == 7 && rec[1] != "" && rec[3] != "":
			o, err1 := strconv.ParseFloat(rec[1], 64)
			n, err2 := strconv.ParseFloat(rec[3], 64)
			require.NoError(t, err1, line)
			require.NoError(t, err2, line)
			cells[rec[0]+" "+unit] = benchstatCell{o, n, rec[5], rec[6]}
		}
	}
	return cells
}

// TestAgreesWithBenchstat checks every comparison against benchstat itself,
// an independent implementation of the same statistics: same medians, same
// delta or "~", same p-value to three places.
func TestAgreesWithBenchstat(t *testing.T) {
	goCmd := goTool(t)
	pairs := [][2]string{
		{"base.txt", "search-30pct-slower.txt"},
		{"base.txt", "same-noise3.txt"},
		{"base.txt", "hit10-drop.txt"},
		{"base.txt", "search-30pct-faster.txt"},
		{"base.txt", "one-side.txt"},
		{"base.txt", "index-throughput-drop.txt"},
		{"n1-old.txt", "n1-new-50pct-slower.txt"},
	}
	for _, p := range pairs {
		t.Run(p[1], func(t *testing.T) {
			// -ignore commit: benchstat otherwise puts files whose commit:
			// lines differ in separate tables and compares nothing.
			out := run(t, goCmd, nil, "tool", "benchstat", "-ignore", "commit", "-format", "csv",
				filepath.Join("testdata", p[0]), filepath.Join("testdata", p[1]))
			ref := parseBenchstatCSV(t, out)
			rep := compareFiles(t, p[0], p[1], DefaultConfig())
			compared := 0
			for _, row := range rep.Rows {
				k := row.Name + " " + row.Unit
				want, ok := ref[k]
				if row.Verdict == OneSide {
					if ok {
						t.Errorf("%s: one-sided here, compared by benchstat", k)
					}
					continue
				}
				if !ok {
					t.Errorf("%s: missing from benchstat's output", k)
					continue
				}
				compared++
				if !approx(row.Old.Center, want.old) || !approx(row.New.Center, want.new) {
					t.Errorf("%s: centers %v -> %v, benchstat %v -> %v", k, row.Old.Center, row.New.Center, want.old, want.new)
				}
				gotDelta := formatDelta(row.Delta)
				if !row.Exact && (row.Verdict == TooFew || row.P > rep.Config.Alpha) {
					gotDelta = "~"
				}
				if gotDelta != want.delta {
					t.Errorf("%s: delta %q, benchstat %q", k, gotDelta, want.delta)
				}
				if !row.Exact && row.Verdict != TooFew {
					if p := fmt.Sprintf("p=%.3f ", row.P); !strings.HasPrefix(want.test, p) {
						t.Errorf("%s: %s, benchstat %q", k, p, want.test)
					}
				}
				if row.Exact && strings.Contains(want.test, "p=") {
					t.Errorf("%s: exact here, benchstat ran a test: %q", k, want.test)
				}
			}
			if compared == 0 {
				t.Fatalf("nothing compared; benchstat output:\n%s", out)
			}
		})
	}
}

func approx(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// TestUnitMetadataFromGoBenchmark runs a real Go benchmark that reports
// hit@10 with b.ReportMetric and prints "Unit hit@10 better=higher
// assume=exact", and checks that the line reaches the benchmark file, that
// benchfmt reads it back, that benchstat treats hit@10 as exact, and that
// the gate fails on a one-task drop.
func TestUnitMetadataFromGoBenchmark(t *testing.T) {
	goCmd := goTool(t)
	dir := t.TempDir()
	files := map[string]string{"0.7333": filepath.Join(dir, "old.txt"), "0.7": filepath.Join(dir, "new.txt")}
	for hit10, path := range files {
		out := run(t, goCmd, []string{"UNITBENCH_HIT10=" + hit10},
			"test", "-run", "^$", "-bench", ".", "-count", "3", "-benchtime", "100x", "./testdata/unitbench")
		require.NoError(t, os.WriteFile(path, out, 0o644))

		// Read the file back with benchfmt: unit metadata present, no
		// malformed line, three results carrying hit@10.
		f, err := os.Open(path)
		require.NoError(t, err)
		rd := benchfmt.NewReader(f, path)
		results := 0
		for rd.Scan() {
			switch rec := rd.Result().(type) {
			case *benchfmt.SyntaxError:
				t.Errorf("%v", rec)
			case *benchfmt.Result:
				results++
				if v, ok := rec.Value("hit@10"); !ok || strconv.FormatFloat(v, 'g', -1, 64) != hit10 {
					t.Errorf("%s: hit@10 = %v, %v; want %s", rec.Name, v, ok, hit10)
				}
			}
		}
		f.Close()
		require.NoError(t, rd.Err())
		if results != 3 {
			t.Errorf("%s: %d results, want 3 (-count 3):\n%s", path, results, out)
		}
		units := rd.Units()
		if m := units.Get("hit@10", "better"); m == nil || m.Value != "higher" {
			t.Errorf("%s: hit@10 better= metadata %+v, want higher:\n%s", path, m, out)
		}
		if units.GetAssumption("hit@10") != benchmath.AssumeExact {
			t.Errorf("%s: hit@10 is not assume=exact:\n%s", path, out)
		}
		if units.GetBetter("queries/s") != 1 {
			t.Errorf("%s: queries/s is not better=higher", path)
		}
	}

	// benchstat: the exact unit gets a delta from n=3 alone (no U test, no
	// "~", no p-value, a ±0% range) while the non-exact queries/s gets the
	// U test ("(p=…" after a "~" or a delta). "op=search" contains "p=",
	// hence the parenthesis.
	out := string(run(t, goCmd, nil, "tool", "benchstat", files["0.7333"], files["0.7"]))
	hitRow := benchstatRow(t, out, "hit@10", "Quality/system=fake/op=search")
	for _, want := range []string{"733.3m ± 0%", "700.0m ± 0%", "-4.54% (n=3)"} {
		if !strings.Contains(hitRow, want) {
			t.Errorf("benchstat hit@10 row %q lacks %q:\n%s", hitRow, want, out)
		}
	}
	if strings.Contains(hitRow, "(p=") || strings.Contains(hitRow, "~") || strings.Contains(hitRow, "∞") {
		t.Errorf("benchstat treated hit@10 as noisy: %q\n%s", hitRow, out)
	}
	if qpsRow := benchstatRow(t, out, "queries/s", "Quality/system=fake/op=search"); !strings.Contains(qpsRow, "(p=") {
		t.Errorf("benchstat queries/s row %q has no p-value: the control for the exact unit is broken\n%s", qpsRow, out)
	}

	oldF, err := os.Open(files["0.7333"])
	require.NoError(t, err)
	defer oldF.Close()
	newF, err := os.Open(files["0.7"])
	require.NoError(t, err)
	defer newF.Close()
	rep, err := Compare(oldF, newF, "old.txt", "new.txt", DefaultConfig())
	require.NoError(t, err)
	if !rep.Failed() || rep.Count(Regressed) != 1 || rep.Rows[0].Unit != "hit@10" {
		var buf bytes.Buffer
		rep.Write(&buf, "text")
		t.Errorf("gate on the hit@10 drop: want exactly hit@10 regressed\n%s", buf.String())
	}
}

// benchstatRow returns the row for bench in the table of unit from
// benchstat's text output.
func benchstatRow(t *testing.T, out, unit, bench string) string {
	t.Helper()
	inTable := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(line, "│") && strings.Contains(line, " "+unit+" "):
			inTable = true
		case line == "":
			inTable = false
		case inTable && strings.HasPrefix(line, bench):
			return line
		}
	}
	t.Fatalf("no %s row for %s in benchstat output:\n%s", unit, bench, out)
	return ""
}
