package gate

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden report files in testdata")

const (
	search  = "RepoQA/system=bm25/config=default/op=search-2"
	index   = "RepoQA/system=bm25/config=default/op=index-2"
	trigram = "RepoQA/system=bm25/config=trigram/op=search-2"
)

func compareFiles(t *testing.T, oldFile, newFile string, cfg Config) *Report {
	t.Helper()
	o, err := os.Open(filepath.Join("testdata", oldFile))
	require.NoError(t, err)
	defer o.Close()
	n, err := os.Open(filepath.Join("testdata", newFile))
	require.NoError(t, err)
	defer n.Close()
	rep, err := Compare(o, n, oldFile, newFile, cfg)
	require.NoError(t, err)
	return rep
}

// verdicts maps "benchmark unit" to the verdict of each row.
func verdicts(rep *Report) map[string]Verdict {
	m := make(map[string]Verdict)
	for _, r := range rep.Rows {
		m[r.Name+" "+r.Unit] = r.Verdict
	}
	return m
}

func TestCompareFiles(t *testing.T) {
	withMissing := DefaultConfig()
	withMissing.FailOnMissing = true
	tests := []struct {
		name, old, new string
		cfg            Config
		reason         string
		wantFailed     bool
		// want lists the verdicts of some rows; wantCounts all counts.
		want       map[string]Verdict
		wantCounts map[Verdict]int
	}{
		{
			name: "latency 30% slower", old: "base.txt", new: "search-30pct-slower.txt",
			reason:     "10 runs each, every new search time ~1.3x the old: significant and over 10%, in sec/op and queries/s alike",
			wantFailed: true,
			want: map[string]Verdict{
				search + " sec/op": Regressed, search + " queries/s": Regressed,
				trigram + " sec/op": Unchanged, search + " hit@10": Unchanged, index + " docs/s": Unchanged,
			},
			wantCounts: map[Verdict]int{Regressed: 2, Unchanged: 15},
		},
		{
			name: "noise within 3%", old: "base.txt", new: "same-noise3.txt",
			reason:     "same centers, uniform ±3% noise on a new seed: nothing may fail",
			want:       map[string]Verdict{search + " sec/op": Unchanged, index + " docs/s": Unchanged},
			wantCounts: map[Verdict]int{Unchanged: 17},
		},
		{
			name: "exact quality unit drops by one task", old: "base.txt", new: "hit10-drop.txt",
			reason:     "hit@10 0.7333 -> 0.7000 (one task of 30) with assume=exact: any drop fails, no statistics needed",
			wantFailed: true,
			want:       map[string]Verdict{search + " hit@10": Regressed, search + " hit@1": Unchanged, search + " sec/op": Unchanged},
			wantCounts: map[Verdict]int{Regressed: 1, Unchanged: 16},
		},
		{
			name: "improvement", old: "base.txt", new: "search-30pct-faster.txt",
			reason:     "search 30% faster: listed as improved, passes",
			want:       map[string]Verdict{search + " sec/op": Improved, search + " queries/s": Improved, trigram + " sec/op": Unchanged},
			wantCounts: map[Verdict]int{Improved: 2, Unchanged: 15},
		},
		{
			name: "one side only", old: "base.txt", new: "one-side.txt",
			reason: "new drops the trigram config (6 units) and adds index-bytes: reported, not a failure by default",
			want: map[string]Verdict{
				index + " index-bytes": OneSide, trigram + " sec/op": OneSide, trigram + " hit@10": OneSide,
				search + " sec/op": Unchanged,
			},
			wantCounts: map[Verdict]int{OneSide: 7, Unchanged: 11},
		},
		{
			name: "one side only with FailOnMissing", old: "base.txt", new: "one-side.txt", cfg: withMissing,
			reason:     "FailOnMissing turns a vanished benchmark into a failure",
			wantFailed: true,
			want:       map[string]Verdict{index + " index-bytes": OneSide},
			wantCounts: map[Verdict]int{OneSide: 7, Unchanged: 11},
		},
		{
			name: "n=1 latency is too few", old: "n1-old.txt", new: "n1-new-50pct-slower.txt",
			reason: "one run each, new 50% slower: the U test cannot reach p<=0.05 with 1+1 values, so too few, not a regression; exact units still compare",
			want: map[string]Verdict{
				search + " sec/op": TooFew, search + " queries/s": TooFew, index + " docs/s": TooFew,
				search + " hit@10": Unchanged,
			},
			wantCounts: map[Verdict]int{TooFew: 9, Unchanged: 8},
		},
		{
			name: "throughput drop", old: "base.txt", new: "index-throughput-drop.txt",
			reason:     "docs/s (higher is better, no ns/op on the line) falls 30%: fails",
			wantFailed: true,
			want:       map[string]Verdict{index + " docs/s": Regressed, index + " peak-RSS-bytes": Unchanged},
			wantCounts: map[Verdict]int{Regressed: 1, Unchanged: 16},
		},
		{
			name: "same file", old: "base.txt", new: "base.txt",
			reason:     "a file against itself: every row unchanged",
			wantCounts: map[Verdict]int{Unchanged: 17},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			if cfg == (Config{}) {
				cfg = DefaultConfig()
			}
			rep := compareFiles(t, tt.old, tt.new, cfg)
			if got := rep.Failed(); got != tt.wantFailed {
				var buf bytes.Buffer
				rep.Write(&buf, "text")
				t.Errorf("Failed() = %v, want %v (%s)\n%s", got, tt.wantFailed, tt.reason, buf.String())
			}
			all := verdicts(rep)
			got := make(map[string]Verdict, len(tt.want))
			for k := range tt.want {
				got[k] = all[k]
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("verdicts mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
			gotCounts := make(map[Verdict]int)
			for v := range Verdict(len(verdictNames)) {
				if n := rep.Count(v); n > 0 {
					gotCounts[v] = n
				}
			}
			if diff := cmp.Diff(tt.wantCounts, gotCounts); diff != "" {
				t.Errorf("verdict counts mismatch (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestRegressionDetails checks the numbers behind a verdict, against values
// worked out by hand from the testdata.
func TestRegressionDetails(t *testing.T) {
	rep := compareFiles(t, "base.txt", "hit10-drop.txt", DefaultConfig())
	require.Equal(t, Regressed, rep.Rows[0].Verdict)
	r := rep.Rows[0]
	if r.Name != search || r.Unit != "hit@10" || !r.Exact || r.Better != 1 {
		t.Errorf("row = %s %s exact=%v better=%d, want %s hit@10 exact=true better=1", r.Name, r.Unit, r.Exact, r.Better, search)
	}
	if want := (0.7 - 0.7333) / 0.7333; math.Abs(r.Delta-want) > 1e-12 {
		t.Errorf("Delta = %v, want %v", r.Delta, want)
	}
	if r.Old.N != 10 || r.New.N != 10 || r.Old.Center != 0.7333 || r.New.Center != 0.7 {
		t.Errorf("sides = %+v / %+v, want n=10 centers 0.7333 / 0.7", *r.Old, *r.New)
	}
	if !math.IsNaN(r.P) {
		t.Errorf("P = %v for an exact unit, want NaN", r.P)
	}

	rep = compareFiles(t, "base.txt", "search-30pct-slower.txt", DefaultConfig())
	var sec *Row
	for i := range rep.Rows {
		if rep.Rows[i].Name == search && rep.Rows[i].Unit == "sec/op" {
			sec = &rep.Rows[i]
		}
	}
	require.NotNil(t, sec, "no sec/op row: ns/op must be tidied to sec/op")
	// Every new value exceeds every old one, so U = 0 and, with no ties
	// and n=10+10, the exact two-sided p = 2/C(20,10) = 2/184756.
	if want := 2.0 / 184756; math.Abs(sec.P-want) > 1e-12 {
		t.Errorf("P = %v, want %v", sec.P, want)
	}
	if sec.Delta < 0.25 || sec.Delta > 0.35 || !(sec.RatioLo > 1.1 && sec.RatioLo <= 1+sec.Delta && sec.RatioHi >= 1+sec.Delta) {
		t.Errorf("Delta %v, ratio CI [%v, %v]: want ~+30%% inside a CI above 1.1", sec.Delta, sec.RatioLo, sec.RatioHi)
	}
}

func TestThresholdAndDirection(t *testing.T) {
	// Synthetic files: 8 runs each, fully separated samples, so p is the
	// minimum 2/C(16,8) and only the threshold and direction decide.
	mk := func(unitLines string, vals ...float64) string {
		var b strings.Builder
		b.WriteString(unitLines)
		for _, v := range vals {
			for i := range 8 {
				fmt.Fprintf(&b, "BenchmarkX 1 %g ns/op %g queries/s %g peak-RSS-bytes %g score\n", v+float64(i)*1e-3, v+float64(i)*1e-3, v+float64(i)*1e-3, v+float64(i)*1e-3)
			}
		}
		return b.String()
	}
	tests := []struct {
		name      string
		units     string
		old, new  float64
		threshold float64
		want      map[string]Verdict
		reason    string
	}{
		{"5% up within threshold", "", 100, 105, 0.10,
			map[string]Verdict{"sec/op": Unchanged, "queries/s": Improved, "peak-RSS-bytes": Unchanged, "score": Unchanged},
			"a significant 5% rise is within 10% for lower-is-better units, and an improvement for /s units"},
		{"5% up over a 1% threshold", "", 100, 105, 0.01,
			map[string]Verdict{"sec/op": Regressed, "queries/s": Improved, "peak-RSS-bytes": Regressed, "score": Regressed},
			"units without metadata: /s is higher-is-better, everything else lower-is-better"},
		{"20% down", "", 100, 80, 0.10,
			map[string]Verdict{"sec/op": Improved, "queries/s": Regressed, "peak-RSS-bytes": Improved, "score": Improved},
			"a 20% drop regresses only the higher-is-better unit"},
		{"metadata flips score", "Unit score better=higher\nUnit queries/s better=lower\n", 100, 80, 0.10,
			map[string]Verdict{"sec/op": Improved, "queries/s": Improved, "peak-RSS-bytes": Improved, "score": Regressed},
			"better= metadata overrides the defaults in both directions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Threshold = tt.threshold
			rep, err := Compare(strings.NewReader(mk(tt.units, tt.old)), strings.NewReader(mk("", tt.new)), "old", "new", cfg)
			require.NoError(t, err)
			got := make(map[string]Verdict)
			for _, r := range rep.Rows {
				got[r.Unit] = r.Verdict
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdicts by unit (-want +got) (%s):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestNoisyShiftIsNotARegression(t *testing.T) {
	// Medians 15% apart and fully separated samples (p is the minimum), but
	// the new runs scatter widely: the 95% interval of the median ratio
	// reaches below +10%, so the gate must not call it a regression — the
	// false alarm seen between two runs of one commit on a busy machine.
	// The same shift with tight samples must still fail.
	bench := func(vals ...float64) string {
		var b strings.Builder
		for _, v := range vals {
			fmt.Fprintf(&b, "BenchmarkX 1 %g ns/op\n", v)
		}
		return b.String()
	}
	old := bench(100, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3, 99.7, 100)
	tests := []struct {
		name   string
		new    string
		want   Verdict
		reason string
	}{
		{"noisy", bench(101, 130, 104, 126, 112, 118, 103, 128, 115, 116), Unchanged,
			"median +15% but the ratio interval starts below +10%"},
		{"tight", bench(114.5, 115, 115.5, 115.2, 114.8, 115.1, 114.9, 115.3, 114.7, 115), Regressed,
			"median +15% and the whole ratio interval beyond +10%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Compare(strings.NewReader(old), strings.NewReader(tt.new), "old", "new", DefaultConfig())
			require.NoError(t, err)
			require.Len(t, rep.Rows, 1)
			r := rep.Rows[0]
			if r.Verdict != tt.want {
				t.Errorf("verdict %v (delta %+.1f%%, ratio CI [%.3f, %.3f], p %.4f, note %q), want %v: %s",
					r.Verdict, r.Delta*100, r.RatioLo, r.RatioHi, r.P, r.Note, tt.want, tt.reason)
			}
		})
	}
}

func TestMinUTestP(t *testing.T) {
	tests := []struct {
		n1, n2 int
		want   float64
		reason string
	}{
		{1, 1, 1, "2/C(2,1) = 1"},
		{3, 3, 0.1, "2/C(6,3) = 2/20"},
		{4, 4, 2.0 / 70, "2/C(8,4): the first equal size that reaches 0.05"},
		{1, 10, 2.0 / 11, "one old run never suffices however many new runs"},
		{10, 10, 2.0 / 184756, "2/C(20,10)"},
	}
	for _, tt := range tests {
		if got := minUTestP(tt.n1, tt.n2); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("minUTestP(%d, %d) = %v, want %v (%s)", tt.n1, tt.n2, got, tt.want, tt.reason)
		}
	}
	if got := minRuns(0.05); got != 4 {
		t.Errorf("minRuns(0.05) = %d, want 4 (benchmath's uTestMinP table)", got)
	}
}

func TestBadInput(t *testing.T) {
	good := "BenchmarkX 1 100 ns/op\n"
	tests := []struct {
		name, old, new string
		wantErr        []string // substrings
		reason         string
	}{
		{"empty", "", good, []string{"old has no benchmark results"}, "a crashed or failed bench run leaves no results"},
		{"only text", "goos: linux\nFAIL\n", good, []string{"old has no benchmark results"}, "no Benchmark lines at all"},
		{"syntax error", good, "BenchmarkX 1 100\n", []string{"new:1: missing units"}, "a malformed result line names file:line"},
		{"bad number", good + "BenchmarkX abc 100 ns/op\n", good, []string{"old:2: parsing iteration count"}, "second line of old"},
		{"conflicting metadata", "Unit score better=higher\n" + good, "Unit score better=lower\n" + good, []string{"new:1: metadata better of unit score already set to higher"}, "metadata spans both files and must agree"},
		{"bad better", "Unit score better=sideways\nBenchmarkX 1 1 score\n", good, []string{"old:1: unit score: better=sideways"}, "only higher or lower"},
		{"bad assume", "Unit score assume=normal\nBenchmarkX 1 1 score\n", good, []string{"old:1: unit score: assume=normal"}, "only exact or nothing"},
		{"not finite", "BenchmarkX 1 NaN ns/op\n", good, []string{"old:1: X: value NaN"}, "NaN would poison the U test"},
		{"same name two packages", "pkg: a\n" + good + "pkg: b\n" + good, good, []string{"old:4: benchmark X in package \"b\" was already seen in package \"a\" at old:2"}, "grouping by name must not merge packages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(strings.NewReader(tt.old), strings.NewReader(tt.new), "old", "new", DefaultConfig())
			require.Error(t, err, tt.reason)
			if !errors.Is(err, ErrBadInput) {
				t.Errorf("error %q does not wrap ErrBadInput", err)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q (%s)", err, s, tt.reason)
				}
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	for _, c := range []Config{
		{Threshold: -0.1, Alpha: 0.05, Confidence: 0.95},
		{Threshold: 0.1, Alpha: 0, Confidence: 0.95},
		{Threshold: 0.1, Alpha: 0.05, Confidence: 1},
	} {
		if c.Validate() == nil {
			t.Errorf("%+v: Validate() = nil, want an error", c)
		}
		if _, err := Compare(strings.NewReader(""), strings.NewReader(""), "a", "b", c); err == nil {
			t.Errorf("%+v: Compare accepted an invalid config", c)
		}
	}
}

// TestWriteGolden pins the three report formats and their order.
func TestWriteGolden(t *testing.T) {
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var got bytes.Buffer
			rep := compareFiles(t, "base.txt", "search-30pct-slower.txt", DefaultConfig())
			require.NoError(t, rep.Write(&got, format))
			// Deterministic: a second comparison writes the same bytes.
			var again bytes.Buffer
			require.NoError(t, compareFiles(t, "base.txt", "search-30pct-slower.txt", DefaultConfig()).Write(&again, format))
			if got.String() != again.String() {
				t.Fatalf("two runs wrote different %s reports", format)
			}
			golden := filepath.Join("testdata", "report-30pct-slower."+format+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, got.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./gate -update to create it")
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				os.WriteFile(golden[:len(golden)-len(".golden")]+".got", got.Bytes(), 0o644)
				t.Errorf("%s report mismatch (-want +got):\n%s", format, diff)
			}
		})
	}
	var buf bytes.Buffer
	if err := (&Report{}).Write(&buf, "xml"); !errors.Is(err, ErrFormat) {
		t.Errorf("Write(xml) = %v, want ErrFormat", err)
	}
}
