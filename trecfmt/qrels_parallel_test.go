package trecfmt

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

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
			gotJ, err := readJudgmentsParallel([]byte(in), "q", parts)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("input %d, %d parts, compact: error %v, want %v\n%s", i, parts, err, wantErr, in)
			}
			if diff := cmp.Diff(want, judgmentsMap(t, gotJ)); diff != "" {
				t.Fatalf("input %d, %d parts: compact judgments differ (-sequential +compact):\n%s", i, parts, diff)
			}
		}
	}
	if errCount == 0 || errCount == 400 {
		t.Errorf("%d of 400 inputs have an error: the test needs both kinds", errCount)
	}
}

// FuzzReadQrelsParallel holds the parallel reader to ReadQrels on any
// input, cut into 1 to 3 parts: the same judgments or the same error.
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
		gotJ, err := readJudgmentsParallel(in, "fuzz", 1+int(parts%3))
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("compact: error %v, want %v", err, wantErr)
		}
		if diff := cmp.Diff(want, judgmentsMap(t, gotJ)); diff != "" {
			t.Fatalf("judgments differ (-sequential +compact):\n%s", diff)
		}
	})
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
