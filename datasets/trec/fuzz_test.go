package trec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/corpus"
)

// The seed corpora live in testdata/fuzz/<FuzzName> (the fixture's
// docs.trec and topics.trec among them).

// FuzzReadSGML feeds the same bytes to the TREC document, topic and qrels
// readers: no panic, every error names the file, accepted documents have a
// DOCNO and accepted topics a number.
func FuzzReadSGML(f *testing.F) {
	f.Add([]byte("<DOC>\n<DOCNO> d1 </DOCNO>\n<TEXT>\nhello\n</TEXT>\n</DOC>\n"))
	f.Add([]byte("<top>\n<num> Number: 301\n<title> t\n<desc> Description:\nd\n</top>\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		file := filepath.Join(t.TempDir(), "f.trec")
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		named := func(what string, err error) {
			if err != nil && !strings.Contains(err.Error(), file) {
				t.Fatalf("%s: error %q does not name the file", what, err)
			}
		}
		named("docs", ReadDocs(file, func(d corpus.Doc, line int) error {
			if strings.TrimSpace(d.ID) == "" {
				t.Errorf("%s:%d: document accepted without a DOCNO", file, line)
			}
			return nil
		}))
		ts, err := ReadTopics(file)
		named("topics", err)
		for _, tp := range ts {
			if strings.TrimSpace(tp.Num) == "" {
				t.Errorf("line %d: topic accepted without a number", tp.Line)
			}
		}
		_, err = ReadQrels(file)
		named("qrels", err)
	})
}
