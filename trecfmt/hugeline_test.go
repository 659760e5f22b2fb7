package trecfmt

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// hugeLine is a reader of one 100 MB line (no newline) after a valid line,
// made on the fly.
func hugeLine(first string) io.Reader {
	return io.MultiReader(strings.NewReader(first), io.LimitReader(repeatByte('x'), 100<<20))
}

type repeatByte byte

func (r repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestHugeLine feeds a 100 MB single line to every reader: each stops with
// a *SyntaxError naming the file and the line, never a panic or an
// unbounded allocation.
func TestHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 100 MB per reader (-short)")
	}
	for _, tc := range []struct {
		name  string
		first string
		read  func(r io.Reader) error
	}{
		{"qrels", "q 0 d 1\n", func(r io.Reader) error { _, err := ReadQrels(r, "f"); return err }},
		{"run", "q Q0 d 1 1.0 t\n", func(r io.Reader) error { _, _, err := ReadRun(r, "f", false); return err }},
		{"beir-corpus", `{"_id": "d", "text": "t"}` + "\n", func(r io.Reader) error {
			return ReadBEIRCorpus(r, "f", func(BEIRDoc) error { return nil })
		}},
		{"beir-queries", `{"_id": "q", "text": "t"}` + "\n", func(r io.Reader) error { _, err := ReadBEIRQueries(r, "f"); return err }},
		{"beir-qrels", "query-id\tcorpus-id\tscore\nq\td\t1\n", func(r io.Reader) error { _, err := ReadBEIRQrels(r, "f"); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.read(hugeLine(tc.first))
			var se *SyntaxError
			if !errors.As(err, &se) || se.File != "f" || se.Line != bytes.Count([]byte(tc.first), []byte("\n"))+1 {
				t.Fatalf("error %v; want a SyntaxError at f:%d (the huge line)", err, bytes.Count([]byte(tc.first), []byte("\n"))+1)
			}
		})
	}
}
