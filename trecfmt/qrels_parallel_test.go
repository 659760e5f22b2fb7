package trecfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// TestReadQrelsParallel checks the parallel reader against ReadQrels (the
// sequential reader): the same judgments or the same error, on random
// qrels cut into 1 to 5 parts, with queries that recur in other parts,
// comments, blank lines, CRLF, no final newline, documents judged twice in
// one part or in two, separators and grades fastQrelsLine takes and ones it
// leaves to the general path, and bad lines.
func TestReadQrelsParallel(t *testing.T) {
	old := minQrelsPart
	minQrelsPart = 1
	t.Cleanup(func() { minQrelsPart = old })
	r := rand.New(rand.NewPCG(5, 6))
	errCount := 0
	for i := range 400 {
		var b strings.Builder
		n := 1 + r.IntN(200)
		for j := range n {
			q := j / (1 + r.IntN(20))
			if r.IntN(10) == 0 {
				q = r.IntN(n) // a query that comes back
			}
			doc := fmt.Sprintf("d%d", j)
			if i%3 == 0 && r.IntN(100) == 0 {
				doc = fmt.Sprintf("d%d", r.IntN(j+1)) // may be judged twice
			}
			// Separators and grades of fastQrelsLine's shape and others
			// (which the general path reads).
			sep := []string{" ", " ", "\t", "  ", " \t", "\v", "\x01"}[r.IntN(7)]
			grade := fmt.Sprint(r.IntN(5) - 1)
			if r.IntN(30) == 0 {
				grade = []string{"+1", "12", "-0", "x", "007"}[r.IntN(5)]
			}
			fmt.Fprintf(&b, "q%d%s0 %s%s%s", q, sep, doc, sep, grade)
			switch r.IntN(40) {
			case 0:
				b.WriteString("\n# comment\n\n")
				continue
			case 1:
				b.WriteString("\r")
			case 2:
				if i%5 == 0 {
					b.WriteString(" extra") // an error
				}
			}
			if j < n-1 || r.IntN(2) == 0 {
				b.WriteString("\n")
			}
		}
		in := b.String()
		want, wantErr := ReadQrels(strings.NewReader(in), "q")
		if wantErr != nil {
			errCount++
		}
		for parts := 1; parts <= 5; parts++ {
			got, err := readQrelsParallel([]byte(in), "q", parts)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("input %d, %d parts: error %v, want %v\n%s", i, parts, err, wantErr, in)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("input %d, %d parts: judgments differ (-sequential +parallel):\n%s", i, parts, diff)
			}
			// The compact reader: blocks from one byte (every line
			// crosses block ends) to more than the input, short reads and
			// wrong size hints.
			block := []int{1, 7, 16, 64, 300, 1 << 20}[(i+parts)%6]
			gotJ, err := readJudgmentsVia([]byte(in), "q", parts, block, i+parts)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("input %d, %d workers, blocks of %d: error %v, want %v\n%s", i, parts, block, err, wantErr, in)
			}
			if diff := cmp.Diff(want, judgmentsMap(t, gotJ)); diff != "" {
				t.Fatalf("input %d, %d workers, blocks of %d: compact judgments differ (-sequential +compact):\n%s", i, parts, block, diff)
			}
		}
	}
	if errCount == 0 || errCount == 400 {
		t.Errorf("%d of 400 inputs have an error: the test needs both kinds", errCount)
	}
}

// readJudgmentsVia reads in as ReadJudgmentsFile reads a file, in blocks
// of block bytes on workers goroutines, from a reader and with a size
// hint chosen by how: the exact size, short reads with no size, one byte
// a read with too small a size (the arrays grow), or too large a size.
func readJudgmentsVia(in []byte, name string, workers, block, how int) (*Judgments, error) {
	var r io.Reader = bytes.NewReader(in)
	size := int64(len(in))
	switch how % 4 {
	case 1:
		r, size = iotest.HalfReader(r), -1
	case 2:
		r, size = iotest.OneByteReader(r), size/3
	case 3:
		size = 10*size + 100
	}
	j, ok, err := readJudgments(r, size, workers, block)
	if err != nil || ok {
		return j, err
	}
	return judgmentsSlow(bytes.NewReader(in), name)
}

// FuzzReadQrelsParallel holds the parallel readers to ReadQrels on any
// input, cut into 1 to 3 parts or read in blocks of 1 to 64 bytes: the
// same judgments or the same error.
func FuzzReadQrelsParallel(f *testing.F) {
	f.Add([]byte("301 0 d1 1\n301 0 d2 0\n302 0 d1 2\n"), uint8(2))
	f.Add([]byte("301 0 d1 1\r\n# c\n\n301 0 d1 0"), uint8(3))
	f.Add([]byte("301 0 d1 +1\n302\t0\td1\t-0\n301 0 d2 x\n"), uint8(2))
	f.Add([]byte("q\x01 0 d 1\nq 0 d\x7f\xff 1\nq  0\t\td2 -3\nq 0 d3 12\n q 0 d4 1"), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, parts uint8) {
		old := minQrelsPart
		minQrelsPart = 1
		defer func() { minQrelsPart = old }()
		want, wantErr := ReadQrels(bytes.NewReader(in), "fuzz")
		got, err := readQrelsParallel(in, "fuzz", 1+int(parts%3))
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("error %v, want %v", err, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("judgments differ (-sequential +parallel):\n%s", diff)
		}
		gotJ, err := readJudgmentsVia(in, "fuzz", 1+int(parts%3), 1+int(parts/4%64), int(parts))
		if wantErr == nil && err != nil && strings.Contains(err.Error(), "does not fit 32 bits") {
			// ReadQrels takes any int; the compact form holds 32 bits.
			if line := wideGradeLine(in); line == 0 || !strings.HasPrefix(err.Error(), fmt.Sprintf("fuzz:%d: ", line)) {
				t.Fatalf("compact: error %v, want one at line %d", err, line)
			}
			return
		}
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("compact: error %v, want %v", err, wantErr)
		}
		if diff := cmp.Diff(want, judgmentsMap(t, gotJ)); diff != "" {
			t.Fatalf("judgments differ (-sequential +compact):\n%s", diff)
		}
	})
}

// wideGradeLine returns the number of the first line of in whose fourth
// field is an integer that does not fit 32 bits, or 0.
func wideGradeLine(in []byte) int {
	for i, line := range strings.Split(string(in), "\n") {
		if f := splitFields(nil, []byte(line)); len(f) == 4 && f[0][0] != '#' {
			if g, err := strconv.Atoi(string(f[3])); err == nil && (g < math.MinInt32 || g > math.MaxInt32) {
				return i + 1
			}
		}
	}
	return 0
}

// judgmentsMap returns j as Qrels (nil for nil j), failing t on a query
// listed twice or lists that do not fit together.
func judgmentsMap(t *testing.T, j *Judgments) Qrels {
	t.Helper()
	if j == nil {
		return nil
	}
	n := len(j.Ends)
	if len(j.Starts) != len(j.QIDs)+1 || j.Starts[0] != 0 || j.Starts[len(j.QIDs)] != n || len(j.Grades) != n {
		t.Fatalf("%d query ids, %d starts, %d ends, %d grades", len(j.QIDs), len(j.Starts), n, len(j.Grades))
	}
	if n > 0 && int(j.Ends[n-1]) != len(j.IDs) {
		t.Fatalf("ids end at %d, %d bytes of ids", j.Ends[n-1], len(j.IDs))
	}
	q := Qrels{}
	for i, qid := range j.QIDs {
		if _, dup := q[qid]; dup {
			t.Fatalf("query %q listed twice", qid)
		}
		m := map[string]int{}
		for k := j.Starts[i]; k < j.Starts[i+1]; k++ {
			m[j.Doc(k)] = int(j.Grades[k])
		}
		q[qid] = m
	}
	return q
}

// TestReadJudgmentsFileBlocks reads files through ReadJudgmentsFile in
// blocks of every size from one byte to more than the file, on 1 to 3
// workers: an empty file, no final newline, CRLF line ends, comments and
// blank lines, a query that comes back, a document judged twice across a
// block end, and bad lines, whose error must name the file and the line.
func TestReadJudgmentsFileBlocks(t *testing.T) {
	old := qrelsBlock
	procs := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { qrelsBlock = old; runtime.GOMAXPROCS(procs) })
	dir := t.TempDir()
	for ci, c := range []struct {
		in      string
		errLine int // 0: no error
		errText string
		wide    bool // the error is the compact form's only (a grade ReadQrels takes)
	}{
		{in: ""},
		{in: "\n\n# only a comment\n"},
		{in: "q1 0 d1 1"},
		{in: "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2"},
		{in: "q1 0 d1 1\r\nq1 0 d2 0\r\nq2 0 d1 2\r\n"},
		{in: "q1 0 d1 1\r\nq1 0 d2 0\r\nq2 0 d1 2\r"},
		{in: "q1 0 d2 1\n# c\n\nq1 0 d1 0\nq2 0 d1 2\nq1 0 d3 -1\n"},
		{in: "q1 0 dd1 1\nq1 0 dd2 1\nq1 0 dd3 1\nq1 0 dd2 0\n", errLine: 4, errText: "judged twice"},
		{in: "q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 0\n", errLine: 3, errText: "judged twice"},
		{in: "q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 x\nq1 0 d4 1\n", errLine: 3, errText: "not an integer"},
		{in: "q1 0 d1 1\r\nq1 0 d2 1 5\r\n", errLine: 2, errText: "5 fields"},
		{in: "q1 0 d1 1\nq1 0 d2", errLine: 2, errText: "3 fields"},
		{in: "q1 0 d1 1\n\nq1 0 d2 -2147483648\nq0 0 d3 2147483648\n", errLine: 4, errText: "grade 2147483648 does not fit 32 bits", wide: true},
	} {
		path := filepath.Join(dir, fmt.Sprintf("qrels%d.txt", ci))
		if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
			t.Fatal(err)
		}
		want, wantErr := ReadQrels(strings.NewReader(c.in), path)
		if (wantErr != nil) != (c.errLine > 0 && !c.wide) {
			t.Fatalf("case %d: ReadQrels error %v, want one at line %d", ci, wantErr, c.errLine)
		}
		for block := 1; block <= len(c.in)+2; block++ {
			qrelsBlock = block
			for workers := 1; workers <= 3; workers++ {
				runtime.GOMAXPROCS(workers)
				got, err := ReadJudgmentsFile(path)
				if c.errLine > 0 {
					var se *SyntaxError
					if !errors.As(err, &se) || se.File != path || se.Line != c.errLine || !strings.Contains(err.Error(), c.errText) {
						t.Fatalf("case %d, blocks of %d, %d workers: error %v, want %s:%d: %s", ci, block, workers, err, path, c.errLine, c.errText)
					}
					continue
				}
				if err != nil {
					t.Fatalf("case %d, blocks of %d, %d workers: %v", ci, block, workers, err)
				}
				if diff := cmp.Diff(want, judgmentsMap(t, got)); diff != "" {
					t.Fatalf("case %d, blocks of %d, %d workers: judgments differ (-ReadQrels +ReadJudgmentsFile):\n%s", ci, block, workers, diff)
				}
			}
		}
	}
}

// TestReadJudgmentsFileLongLine: a line longer than maxLine, in blocks
// smaller and larger than it, is the error ReadQrels makes, at its line.
func TestReadJudgmentsFileLongLine(t *testing.T) {
	old := qrelsBlock
	t.Cleanup(func() { qrelsBlock = old })
	path := filepath.Join(t.TempDir(), "qrels.txt")
	in := "q1 0 d1 1\nq1 0 " + strings.Repeat("x", maxLine) + " 1\nq1 0 d3 1\n"
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, block := range []int{1 << 10, maxLine - 1, maxLine + 100, 4 * maxLine} {
		qrelsBlock = block
		_, err := ReadJudgmentsFile(path)
		var se *SyntaxError
		if !errors.As(err, &se) || se.File != path || se.Line != 2 || !strings.Contains(err.Error(), "longer than") {
			t.Fatalf("blocks of %d: error %v, want %s:2: line longer than …", block, err, path)
		}
	}
}
