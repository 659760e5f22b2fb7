package trecfmt

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
)

// ReadQrels reads TREC qrels ("qid iter docno rel", whitespace separated,
// the iter column ignored) from r; name is the file name used in errors.
// Grades are integers and may be negative (trec_eval reads a negative grade
// as "in the pool but not judged"). A line with other than four fields, a
// non-integer grade, or a document judged twice for one query is an error.
func ReadQrels(r io.Reader, name string) (Qrels, error) {
	lr := newLineReader(r, name)
	qids := make(interner)
	qrels := make(Qrels)
	for lr.next() {
		f := lr.fields
		if len(f) != 4 {
			return nil, syntaxErrorf(name, lr.line, "%d fields, want 4 (qid iter docno rel)", len(f))
		}
		grade, err := strconv.Atoi(string(f[3]))
		if err != nil {
			return nil, syntaxErrorf(name, lr.line, "grade %q is not an integer", f[3])
		}
		qid := qids.get(f[0])
		docs := qrels[qid]
		if docs == nil {
			docs = make(map[string]int)
			qrels[qid] = docs
		}
		if _, dup := docs[string(f[2])]; dup {
			return nil, syntaxErrorf(name, lr.line, "document %q judged twice for query %q", f[2], qid)
		}
		docs[string(f[2])] = grade
	}
	if lr.err != nil {
		return nil, lr.err
	}
	return qrels, nil
}

// ReadQrelsFile reads the TREC qrels file at path (see ReadQrels).
func ReadQrelsFile(path string) (Qrels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadQrels(f, path)
}

// WriteQrels writes qrels in TREC format, one "qid 0 docno grade" line per
// judgment, ordered by query id and document id. An id that is empty or
// contains white space is an error.
func WriteQrels(w io.Writer, qrels Qrels) error {
	bw := bufio.NewWriter(w)
	for _, qid := range sortedKeys(qrels) {
		if !validQID(qid) {
			return fmt.Errorf("qrels: invalid query id %q", qid)
		}
		docs := qrels[qid]
		for _, doc := range sortedKeys(docs) {
			if !validID(doc) {
				return fmt.Errorf("qrels: query %q: invalid document id %q", qid, doc)
			}
			fmt.Fprintf(bw, "%s 0 %s %d\n", qid, doc, docs[doc])
		}
	}
	return bw.Flush()
}

// WriteQrelsFile writes qrels to path atomically (see WriteQrels).
func WriteQrelsFile(path string, qrels Qrels) error {
	return atomicfile.Write(path, func(f io.Writer) error { return WriteQrels(f, qrels) })
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
