package trecfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// smallBlocks makes the parallel scanners cut their input every few
// lines, so block boundaries fall inside queries and between them.
func smallBlocks(t *testing.T, size int) {
	old := blockSize
	blockSize = size
	t.Cleanup(func() { blockSize = old })
}

// collect runs scan and gathers its calls into a Run.
func collect(scan func(r *strings.Reader, fn func(string, []Result) error) (string, error), in string) (Run, string, error) {
	var mu sync.Mutex
	run := Run{}
	tag, err := scan(strings.NewReader(in), func(qid string, rs []Result) error {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := run[qid]; dup {
			return fmt.Errorf("query %q handed over twice", qid)
		}
		// The document ids are only valid during the call.
		own := make([]Result, len(rs))
		for i, r := range rs {
			own[i] = Result{DocID: strings.Clone(r.DocID), Score: r.Score}
		}
		run[qid] = own
		return nil
	})
	return run, tag, err
}

func scanGroups(r *strings.Reader, fn func(string, []Result) error) (string, error) {
	return ScanGroups(r, "q", ScanOptions{Workers: 3}, fn)
}

func scanQueries(r *strings.Reader, fn func(string, []Result) error) (string, error) {
	return ScanQueries(r, "q", ScanOptions{Workers: 3}, fn)
}

// firstRepeat returns the indexes of the first document id of rs that
// repeats, at its first occurrence and its repetition, or -1, -1 (a map,
// the plain way).
func firstRepeat(rs []Result) (first, again int) {
	seen := map[string]int{}
	for i, r := range rs {
		if k, ok := seen[r.DocID]; ok {
			return k, i
		}
		seen[r.DocID] = i
	}
	return -1, -1
}

// fnChecks makes a scanner leave the check for repeated documents to fn
// (ScanOptions.FnChecksRepeats), which makes it with firstRepeat before
// calling on.
func fnChecks(scan func(io.Reader, string, ScanOptions, func(string, []Result) error) (string, error), opt ScanOptions) func(*strings.Reader, func(string, []Result) error) (string, error) {
	opt.FnChecksRepeats = true
	return func(r *strings.Reader, fn func(string, []Result) error) (string, error) {
		return scan(r, "q", opt, func(qid string, rs []Result) error {
			if first, again := firstRepeat(rs); again >= 0 {
				return &RepeatedError{First: first, Again: again}
			}
			return fn(qid, rs)
		})
	}
}

// genRun writes a run of n queries with up to m results each, with
// comments, blank lines and tabs; shuffled puts the lines in random order.
func genRun(seed uint64, n, m int, shuffled bool) string {
	r := rand.New(rand.NewPCG(seed, 1))
	var lines []string
	for q := range n {
		for d := range 1 + r.IntN(m) {
			sep := " "
			if r.IntN(7) == 0 {
				sep = "\t "
			}
			lines = append(lines, fmt.Sprintf("q%d Q0 doc%d%s%d %d.%03d tag%d", q, r.IntN(5*m)*1000+d, sep, d+1, r.IntN(9), r.IntN(1000), q%3))
			if r.IntN(20) == 0 {
				lines = append(lines, "# comment", "")
			}
		}
	}
	if shuffled {
		r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestScannersMatchReadRun checks ScanGroups and ScanQueries against
// ReadRun (the sequential reader) on generated runs, with blocks of many
// sizes so that boundaries fall everywhere.
func TestScannersMatchReadRun(t *testing.T) {
	for _, size := range []int{7, 37, 256, 4096, 1 << 20} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			smallBlocks(t, size)
			for seed := range uint64(4) {
				grouped := genRun(seed, 40, 30, false)
				want, wantTag, err := ReadRun(strings.NewReader(grouped), "q", false)
				if err != nil {
					t.Fatal(err)
				}
				got, tag, err := collect(scanGroups, grouped)
				if err != nil {
					t.Fatalf("ScanGroups: %v", err)
				}
				if diff := cmp.Diff(want, got); diff != "" || tag != wantTag {
					t.Errorf("ScanGroups (-ReadRun +ScanGroups), tag %q want %q:\n%s", tag, wantTag, diff)
				}
				shuffled := genRun(seed, 40, 30, true)
				want, wantTag, err = ReadRun(strings.NewReader(shuffled), "q", false)
				if err != nil {
					t.Fatal(err)
				}
				got, tag, err = collect(scanQueries, shuffled)
				if err != nil {
					t.Fatalf("ScanQueries: %v", err)
				}
				if diff := cmp.Diff(want, got); diff != "" || tag != wantTag {
					t.Errorf("ScanQueries (-ReadRun +ScanQueries), tag %q want %q:\n%s", tag, wantTag, diff)
				}
				got, tag, err = collect(fnChecks(ScanQueries, ScanOptions{Workers: 3}), shuffled)
				if diff := cmp.Diff(want, got); err != nil || diff != "" || tag != wantTag {
					t.Errorf("ScanQueries, fn checks repeats: %v, tag %q want %q (-ReadRun +ScanQueries):\n%s", err, tag, wantTag, diff)
				}
				// fn may meet a query twice before the scanner sees the run is
				// not grouped; the caller's error is then returned instead.
				_, err = scanGroups(strings.NewReader(shuffled), func(string, []Result) error { return nil })
				if !errors.Is(err, ErrNotGrouped) {
					t.Errorf("ScanGroups of a shuffled run: err = %v, want ErrNotGrouped", err)
				}
			}
		})
	}
}

// TestScannerErrors checks that the parallel scanners report bad input with
// the file and line the sequential readers name, wherever the blocks end.
func TestScannerErrors(t *testing.T) {
	filler := genRun(9, 20, 10, false) // lines before the bad one
	n := strings.Count(filler, "\n")
	tests := []struct {
		name, in, want string
		scanners       []string
	}{
		{"columns", "zz Q0 d1 1 0.5\n", "5 fields, want 6", nil},
		{"rank", "zz Q0 d1 one 0.5 t\n", `rank "one" is not an integer`, nil},
		{"score", "zz Q0 d1 1 high t\n", `score "high" is not a number`, nil},
		{"nan", "zz Q0 d1 1 NaN t\n", `score "NaN" is not finite`, nil},
		{"dup", "zz Q0 d1 1 0.5 t\nzz Q0 d2 2 0.4 t\nzz Q0 d1 3 0.3 t\n", fmt.Sprintf(`document "d1" retrieved twice for query "zz" (first on line %d)`, n+1), nil},
		// The first id to repeat, in file order, is named: d2 repeats
		// before d1 does.
		{"dup2", "zz Q0 d1 1 0.5 t\nzz Q0 d2 2 0.4 t\nzz Q0 d3 3 0.4 t\nzz Q0 d2 4 0.3 t\nzz Q0 d1 5 0.3 t\n", fmt.Sprintf(`document "d2" retrieved twice for query "zz" (first on line %d)`, n+2), nil},
		{"long", "zz Q0 " + strings.Repeat("d", maxLine) + " 1 0.5 t\n", "line longer than", nil},
		{"not_grouped", "q0 Q0 dx 1 0.5 t\n", `query "q0" continues after other queries`, []string{"groups"}},
	}
	for _, size := range []int{64, 1 << 20} {
		for _, tt := range tests {
			t.Run(fmt.Sprint(tt.name, size), func(t *testing.T) {
				smallBlocks(t, size)
				in := filler + tt.in
				line := n + strings.Count(tt.in, "\n")
				if tt.name == "dup2" {
					line = n + 4
				}
				if tt.name == "columns" || tt.name == "rank" || tt.name == "score" || tt.name == "nan" || tt.name == "long" || tt.name == "not_grouped" {
					line = n + 1
				}
				want := fmt.Sprintf("q:%d: %s", line, tt.want)
				scanners := map[string]func(*strings.Reader, func(string, []Result) error) (string, error){
					"groups": scanGroups, "queries": scanQueries,
					"groups-fn":  fnChecks(ScanGroups, ScanOptions{Workers: 3}),
					"queries-fn": fnChecks(ScanQueries, ScanOptions{Workers: 3}),
				}
				for name, scan := range scanners {
					if tt.scanners != nil && !slices.Contains(tt.scanners, strings.TrimSuffix(name, "-fn")) {
						continue
					}
					_, _, err := collect(scan, in)
					var se *SyntaxError
					if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), want) {
						t.Errorf("%s: err = %v, want a *SyntaxError starting %q", name, err, want)
					}
				}
			})
		}
	}
}

// FuzzScanners holds the scanners to the sequential readers on any input,
// in blocks of a few bytes to a few lines, extra fields allowed as eval
// reads: ScanQueries to ReadRun (the same queries, results, tag and error
// text), ScanGroups to GroupReader (the same queries, results and tag when
// GroupReader accepts the run, an error when it does not).
func FuzzScanners(f *testing.F) {
	f.Add([]byte("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.25 t\nq2 Q0 d1 1 3 t x\n"), uint8(7))
	f.Add([]byte("q1 Q0 d1 1 0.5 t\nq2 Q0 d1 1 3 t\nq1 Q0 d2 2 -1.5 t\n# c\n\nq2 Q0 d1 1 3 t"), uint8(20))
	f.Add([]byte(genRun(3, 5, 6, false)), uint8(40))
	f.Add([]byte(genRun(4, 5, 6, true)), uint8(64))
	f.Fuzz(func(t *testing.T, in []byte, size uint8) {
		old := blockSize
		blockSize = 1 + int(size)
		defer func() { blockSize = old }()
		opt := ScanOptions{AllowExtraFields: true, Workers: 2}
		scan := func(s func(io.Reader, string, ScanOptions, func(string, []Result) error) (string, error)) (Run, string, error) {
			return collect(func(r *strings.Reader, fn func(string, []Result) error) (string, error) {
				return s(r, "q", opt, fn)
			}, string(in))
		}

		want, wantTag, wantErr := ReadRun(bytes.NewReader(in), "q", true)
		got, tag, err := scan(ScanQueries)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("ScanQueries: error %v, ReadRun %v", err, wantErr)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); err == nil && (diff != "" || tag != wantTag) {
			t.Fatalf("ScanQueries (-ReadRun +scanner), tag %q want %q:\n%s", tag, wantTag, diff)
		}
		// fn checking for repeats itself: the same outcome.
		got, tag, err = collect(fnChecks(ScanQueries, opt), string(in))
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("ScanQueries, fn checks repeats: error %v, ReadRun %v", err, wantErr)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); err == nil && (diff != "" || tag != wantTag) {
			t.Fatalf("ScanQueries, fn checks repeats (-ReadRun +scanner), tag %q want %q:\n%s", tag, wantTag, diff)
		}

		g := NewGroupReader(bytes.NewReader(in), "q")
		g.SetAllowExtraFields(true)
		want = Run{}
		for g.Scan() {
			want[g.QID()] = slices.Clone(g.Results())
		}
		got, tag, err = scan(ScanGroups)
		// fn checking for repeats itself: the same outcome (which error
		// a run that is not grouped meets first depends on the workers'
		// timing).
		got2, tag2, err2 := collect(fnChecks(ScanGroups, opt), string(in))
		if (err2 == nil) != (err == nil) || err == nil && (tag2 != tag || !cmp.Equal(got, got2, cmpopts.EquateEmpty())) {
			t.Fatalf("ScanGroups, fn checks repeats: %v, tag %q, %d queries; without: %v, tag %q, %d queries", err2, tag2, len(got2), err, tag, len(got))
		}
		switch {
		case g.Err() != nil && err == nil:
			t.Fatalf("ScanGroups accepted a run GroupReader rejects: %v", g.Err())
		case g.Err() == nil && err != nil:
			t.Fatalf("ScanGroups: %v; GroupReader accepts the run", err)
		case err == nil:
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" || tag != g.Tag() {
				t.Fatalf("ScanGroups (-GroupReader +scanner), tag %q want %q:\n%s", tag, g.Tag(), diff)
			}
		}
	})
}
